"""The dtype table (:mod:`rocarray._core.dtypes`) against the kernel headers."""

import re

import numpy as np
import pytest

from rocarray._core import compile as _compile
from rocarray._core import dtypes


def _declared_types():
    text = "\n".join(_compile.read_text(f"include/{h}") for h in _compile.HEADER_ORDER)
    names = set(re.findall(r"typedef\s+[\w\s<>]+?\s(ra_\w+)\s*;", text))
    names |= set(re.findall(r"struct\s+(?:alignas\(\d+\)\s+)?(ra_\w+)\s*\{", text))
    return names


def test_every_kernel_type_is_declared_by_the_headers():
    declared = _declared_types() | {"bool", "float", "double"}
    for dtype, ctype in dtypes.CTYPES.items():
        assert ctype in declared, (dtype, ctype)
    assert dtypes.BFLOAT16 in declared
    assert set(dtypes.UNSIGNED.values()) <= declared


def test_integer_typedefs_have_the_dtype_sizes():
    text = _compile.read_text("include/ra_prelude.cuh")
    c_sizes = {"signed char": 1, "unsigned char": 1, "short": 2, "unsigned short": 2, "int": 4, "unsigned int": 4,
               "long long": 8, "unsigned long long": 8}
    for c_type, name in re.findall(r"typedef\s+([\w ]+?)\s+(ra_[iu]\d+)\s*;", text):
        dtype = np.dtype(("int" if name[3] == "i" else "uint") + name[4:])
        assert c_sizes[c_type] == dtype.itemsize and dtypes.ctype(dtype) == name
        assert (c_type.startswith("unsigned")) == (dtype.kind == "u")


def test_ctype_takes_names_types_and_dtypes():
    assert dtypes.ctype("float32") == dtypes.ctype(np.float32) == dtypes.ctype(np.dtype("float32")) == "float"
    assert dtypes.ctype(np.complex64) == "ra_c64" and dtypes.ctype(bool) == "bool"
    with pytest.raises(TypeError, match="no kernel element type"):
        dtypes.ctype("U3")
    with pytest.raises(TypeError):
        dtypes.ctype("not a dtype")


def test_bfloat16_by_name():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    assert dtypes.ctype(ml_dtypes.bfloat16) == "ra_bfloat16"


def test_real_dtype():
    assert dtypes.real_dtype("complex128") == np.float64 and dtypes.real_dtype("int8") == np.int8
