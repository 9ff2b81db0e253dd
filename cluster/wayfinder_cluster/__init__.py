"""Wayfinder's distance tables on a Dask cluster: row blocks of `wayfinder matrix`, written as Parquet."""

__all__ = ["DEFAULT_BLOCK_CELLS", "TableError", "TableOptions", "TableResult", "block_rows_for", "check_output",
           "compute_block", "distributed_table", "read_matrix", "resolve_points"]


# The names come from .table on first use: it imports numpy and pyarrow, and `python -m wayfinder_cluster --help`
# (which imports this package first) must work without them.
def __getattr__(name):
    if name in __all__:
        from . import table
        return getattr(table, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + __all__)
