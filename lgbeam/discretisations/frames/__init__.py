"""Structures of several Cosserat rods joined by joints (rigid, hinge, ball, elastic), assembled from a typed
``FrameModel``; see docs/frames.md."""

from __future__ import annotations

from .joints import JOINT_KINDS, Joint, JointRows
from .model import FrameModel, NodeMass, RodModel
from .structure import Structure

__all__ = ["JOINT_KINDS", "FrameModel", "Joint", "JointRows", "NodeMass", "RodModel", "Structure"]
