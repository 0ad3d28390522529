"""Structures of several Cosserat rods joined by joints (rigid, hinge, ball, elastic); see docs/frames.md."""

from __future__ import annotations

from .joints import JOINT_KINDS, Joint, JointRows
from .structure import Structure

__all__ = ["JOINT_KINDS", "Joint", "JointRows", "Structure"]
