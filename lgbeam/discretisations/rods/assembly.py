"""Scatter of element kernels into global vectors and CSR matrices (fixed sparsity patterns).

Global tangent ordering: node i owns columns 6i … 6i+5 = (Ω_i, U_i) (docs/architecture.md).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from lgbeam._sparse import csr_like
from lgbeam._typing import FloatArray, IntArray


def block_diagonal(diag: FloatArray) -> sp.csr_array:
    """Diagonal CSR matrix from the (n_nodes, 6) nodal diagonals (lumped mass)."""
    d = np.asarray(diag, dtype=float).ravel()
    return sp.diags_array(d, format="csr")


def edge_row_pattern(n_edges: int, rows_per_edge: int, row_offset: int = 0) -> tuple[IntArray, IntArray]:
    """(rows, cols) of constraint rows that couple nodes i−1, i of each edge: 12 entries per row.

    Row ``row_offset + e*rows_per_edge + k`` has columns 6e … 6e+11 (nodes e and e+1).
    """
    e = np.arange(n_edges)[:, None, None]
    k = np.arange(rows_per_edge)[None, :, None]
    c = np.arange(12)[None, None, :]
    rows = np.broadcast_to(row_offset + e * rows_per_edge + k, (n_edges, rows_per_edge, 12))
    cols = np.broadcast_to(6 * e + c, (n_edges, rows_per_edge, 12))
    return rows.ravel(), cols.ravel()


def node_row_pattern(nodes: IntArray, rows_per_node: int, row_offset: int) -> tuple[IntArray, IntArray]:
    """(rows, cols) of constraint rows acting on one node each: 6 entries per row."""
    nodes = np.asarray(nodes, dtype=np.int64)
    j = np.arange(len(nodes))[:, None, None]
    k = np.arange(rows_per_node)[None, :, None]
    c = np.arange(6)[None, None, :]
    rows = np.broadcast_to(row_offset + j * rows_per_node + k, (len(nodes), rows_per_node, 6))
    cols = np.broadcast_to(6 * nodes[:, None, None] + c, (len(nodes), rows_per_node, 6))
    return rows.ravel(), cols.ravel()


def block_tridiagonal(n_blocks: int, b: int) -> CSRPattern:
    """Fixed CSR pattern of a block-tridiagonal (n_blocks·b)² matrix (tangent stiffness of a chain).

    COO data order: the n diagonal blocks, then the n−1 upper blocks (block row e, column e+1), then the n−1
    lower blocks (row e+1, column e), each b×b row-major.
    """
    r, c = np.meshgrid(np.arange(b), np.arange(b), indexing="ij")
    i = np.arange(n_blocks)[:, None, None]
    e = np.arange(n_blocks - 1)[:, None, None]
    rows = np.concatenate([(b * i + r).ravel(), (b * e + r).ravel(), (b * (e + 1) + r).ravel()])
    cols = np.concatenate([(b * i + c).ravel(), (b * (e + 1) + c).ravel(), (b * e + c).ravel()])
    return CSRPattern(rows, cols, (n_blocks * b, n_blocks * b))


class CSRPattern:
    """A fixed CSR sparsity pattern from COO (rows, cols); ``matrix(data)`` places COO-ordered data
    without re-sorting (duplicates must not occur). Every matrix shares one read-only pair of index
    arrays."""

    def __init__(self, rows: IntArray, cols: IntArray, shape: tuple[int, int]) -> None:
        order = sp.coo_array((np.arange(1, rows.size + 1, dtype=float), (rows, cols)), shape=shape).tocsr()
        order.sort_indices()
        if order.nnz != rows.size:
            raise ValueError("CSRPattern: duplicate (row, col) entries in a constraint pattern")
        self.perm = order.data.astype(np.int64) - 1
        self.indices, self.indptr, self.shape = order.indices.copy(), order.indptr.copy(), shape
        template = sp.csr_array((np.zeros(rows.size), self.indices, self.indptr), shape=shape)
        template.has_sorted_indices = True
        template.has_canonical_format = True
        template.indices.flags.writeable = False
        template.indptr.flags.writeable = False
        self.template = template

    def matrix(self, data: FloatArray) -> sp.csr_array:
        return csr_like(self.template, np.ascontiguousarray(data[self.perm], dtype=float))

    def matrix_sorted(self, data: FloatArray) -> sp.csr_array:
        """The matrix from entries already in CSR order (``data[perm]`` of ``matrix``)."""
        return csr_like(self.template, data)
