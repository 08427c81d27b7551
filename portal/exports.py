"""Spreadsheet-safe cells for the CSV and XLSX exports.

A cell a spreadsheet program would read as a formula (text starting with ``=``, ``+``, ``-``,
``@``, a tab or a carriage return) is neutralised with a leading apostrophe, the OWASP advice
for CSV injection; in XLSX every text cell is also typed as a string, so no formula is ever
taken from user text. Numbers stay numbers.
"""

from decimal import Decimal
from typing import Any

FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def safe_text(value: str) -> str:
    return "'" + value if value.startswith(FORMULA_TRIGGERS) else value


def safe_cell(value: Any) -> Any:
    """A value to write into a CSV or XLSX cell: numbers as numbers, anything else as
    neutralised text (None as an empty cell)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, int | float):
        return value
    return safe_text(str(value))


def xlsx_row(sheet, values) -> None:
    """Append a row whose text cells are typed strings (never formulas) and numbers numbers."""
    from openpyxl.cell.cell import Cell

    cells = []
    for value in values:
        value = safe_cell(value)
        cell = Cell(sheet, value=None)
        if isinstance(value, str):
            cell._value = value
            cell.data_type = "s"
        else:
            cell.value = value
        cells.append(cell)
    sheet.append(cells)
