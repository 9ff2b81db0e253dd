"""Wayfinder's distance tables on a Dask cluster: row blocks of `wayfinder matrix`, written as Parquet."""

from .table import (DEFAULT_BLOCK_CELLS, TableError, TableOptions, TableResult, block_rows_for, compute_block,
                    distributed_table, read_matrix, resolve_points)

__all__ = ["DEFAULT_BLOCK_CELLS", "TableError", "TableOptions", "TableResult", "block_rows_for", "compute_block",
           "distributed_table", "read_matrix", "resolve_points"]
