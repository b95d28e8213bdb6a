"""Rewrite CUDA kernel idioms into rocarray's portable form (:func:`hipify`).

The rewriter works on the source text, token by token with regular expressions, never on a C++
syntax tree. Comments, string and character literals are masked out first (same length, newlines
kept), every rule matches only the code that is left, and each rule's edits keep the line count, so a
warning's line number is the same in the CUDA source and in the rewritten one. A comment inside a
span that a rule rewrites (a shuffle's mask argument, say) is kept next to the rewritten text.
"""

import re

from rocarray._user._source_text import (
    _COMMENT, _State, _Text, _WS, _apply, HipifyWarning,
)

__all__ = ["hipify", "HipifyWarning"]


# --------------------------------------------------------------------------------------------
# the rules' vocabulary
# --------------------------------------------------------------------------------------------

_FULL_MASK_LITERALS = (
    r"^(?:0x[fF]{8}|0x[fF]{16}|4294967295|-1|~0|~0x0+)(?:[uU]?[lL]{0,2}|[lL]{0,2}[uU])$"
    r"|^\((?:unsigned(?: int)?|uint32_t|unsigned long long)\)-1$"
    r"|^static_cast<(?:unsigned(?: int)?|uint32_t)>\(-1\)$")
_WARP_SIZE_NAME = (
    r"(?i)^(?:k_?)?(?:warp_?size|warp_?sz|warp_?len(?:gth)?|warp_?threads|threads_?per_?warp|lanes_?per_?warp)$")
_LOG_WARP_NAME = r"(?i)^(?:k_?)?(?:log2?_?warp(?:_?size)?|warp_?(?:shift|bits|log2?))$"
_LANE_MASK_NAME = r"(?i)^(?:k_?)?(?:lane_?mask|warp_?mask|lane_?id_?mask)$"
_LANE_NAME = r"(?i)lane"
_WARP_NAME = r"(?i)warp|^w_?id$|^wid$"
_TYPE32 = r"(?:unsigned\s+int|unsigned|int|uint32_t|int32_t|ra_u32|ra_i32)"
_TYPE_ANY = (r"(?:unsigned\s+long\s+long(?:\s+int)?|long\s+long|unsigned\s+long|unsigned\s+int|unsigned|int|long"
             r"|uint32_t|int32_t|uint64_t|int64_t|ra_u32|ra_i32|ra_u64|ra_i64|ra_lane_mask|size_t|auto)")
_DECL = (rf"(?s)^((?:(?:const|static|volatile|register|__shared__)\s+)*)({_TYPE_ANY})"
         rf"\s+(?:const\s+)?(\w+)\s*=(?!=)(.*)$")
_TYPE64 = r"(?:ra_lane_mask|ra_u64|ra_i64|uint64_t|int64_t|unsigned\s+long\s+long(?:\s+int)?|long\s+long)"
_BALLOT = r"__ballot_sync|ra_ballot|__activemask"
_OTHER_CALL = r"\s*[A-Za-z_]\w*\s*\(.*\)\s*"

_SHUFFLES = {"__shfl_sync": "ra_shfl", "__shfl_up_sync": "ra_shfl_up", "__shfl_down_sync": "ra_shfl_down",
             "__shfl_xor_sync": "ra_shfl_xor"}
_INT_TYPES = {"int8_t": "ra_i8", "uint8_t": "ra_u8", "int16_t": "ra_i16", "uint16_t": "ra_u16",
              "int32_t": "ra_i32", "uint32_t": "ra_u32", "int64_t": "ra_i64", "uint64_t": "ra_u64",
              "intptr_t": "ra_i64", "uintptr_t": "ra_u64"}
_CONVERSIONS = {"__half2float": "ra_half_to_float", "__float2half": "ra_float_to_half",
                "__float2half_rn": "ra_float_to_half", "__bfloat162float": "ra_bfloat16_to_float",
                "__float2bfloat16": "ra_float_to_bfloat16", "__float2bfloat16_rn": "ra_float_to_bfloat16"}
#: Constants of <float.h>, <limits.h>, <math.h> and <math_constants.h> that device code uses: NVRTC has
#: none of those headers, so they become literals (bit patterns for infinities and NaNs).
_CONSTANTS = {
    "FLT_MAX": "3.402823466e+38F", "FLT_MIN": "1.175494351e-38F", "FLT_EPSILON": "1.192092896e-07F",
    "DBL_MAX": "1.7976931348623158e+308", "DBL_MIN": "2.2250738585072014e-308",
    "DBL_EPSILON": "2.2204460492503131e-16",
    "INT_MAX": "2147483647", "INT_MIN": "(-2147483647 - 1)", "UINT_MAX": "4294967295u",
    "LLONG_MAX": "9223372036854775807LL", "LLONG_MIN": "(-9223372036854775807LL - 1)",
    "ULLONG_MAX": "18446744073709551615ULL",
    "INFINITY": "__int_as_float(0x7f800000)", "NAN": "__int_as_float(0x7fffffff)",
    "HUGE_VALF": "__int_as_float(0x7f800000)", "HUGE_VAL": "__longlong_as_double(0x7ff0000000000000LL)",
    "CUDART_INF_F": "__int_as_float(0x7f800000)", "CUDART_NAN_F": "__int_as_float(0x7fffffff)",
    "CUDART_INF": "__longlong_as_double(0x7ff0000000000000LL)",
    "CUDART_NAN": "__longlong_as_double(0xfff8000000000000LL)",
    "CUDART_PI_F": "3.141592654F", "CUDART_PI": "3.1415926535897931e+0",
}
_HALF_ARITHMETIC = {"__hadd": "+", "__hsub": "-", "__hmul": "*", "__hdiv": "/"}
#: cuda_fp16.h / cuda_bf16.h functions with no ra_* counterpart.
_HALF_OTHER = (
    "__hfma|__hfma_sat|__hneg|__habs|__hmax|__hmin|__hmax_nan|__hmin_nan|__heq|__hne|__hlt|__hle|__hgt|__hge"
    "|__hequ|__hneu|__hltu|__hleu|__hgtu|__hgeu|__hisnan|__hisinf|__hadd_sat|__hsub_sat|__hmul_sat"
    "|__hadd2|__hsub2|__hmul2|__hdiv2|__hfma2|__hneg2|__habs2|__hmax2|__hmin2"
    "|hsqrt|hrsqrt|hrcp|hexp|hexp2|hexp10|hlog|hlog2|hlog10|hsin|hcos|hfloor|hceil|htrunc|hrint"
    "|h2sqrt|h2exp|h2log|h2sin|h2cos"
    "|__float2half_rz|__float2half_rd|__float2half_ru|__float2half2_rn|__floats2half2_rn|__half22float2"
    "|__float22half2_rn|__low2half|__high2half|__low2float|__high2float|__halves2half2|__half2half2"
    "|__half_as_short|__half_as_ushort|__short_as_half|__ushort_as_half"
    "|__half2int_rn|__half2int_rz|__int2half_rn|__half2uint_rn|__uint2half_rn|__half2short_rn"
    "|__float2bfloat16_rz|__floats2bfloat162_rn|__bfloat1622float2|__bfloat16_as_ushort|__ushort_as_bfloat16"
    "|__bfloat162int_rn|__int2bfloat16_rn")
#: NVIDIA-only device functions (each compiles with NVRTC but not with HIP) and what to do instead.
_NVIDIA_ONLY = {
    r"__nanosleep": "`__nanosleep` is NVIDIA-only: guard it with #if defined(RA_CUDA) or drop it",
    r"__trap": "`__trap()` is NVIDIA-only (HIP has __builtin_trap()): guard it with #if defined(RA_CUDA)",
    r"__brkpt": "`__brkpt()` is NVIDIA-only",
    r"__match_any_sync|__match_all_sync": "warp match functions have no portable rocarray helper",
    r"__reduce_and_sync|__reduce_or_sync|__reduce_xor_sync":
        "`__reduce_*_sync` has no portable form: reduce with ra_shfl_xor (see ra_warp_reduce)",
    r"__fns": "`__fns` is NVIDIA-only",
    r"__isGlobal|__isShared|__isConstant|__isLocal|__isGridConstant":
        "address-space queries are NVIDIA-only",
    r"__cvta_generic_to_shared|__cvta_generic_to_global|__cvta_shared_to_generic|__cvta_global_to_generic":
        "`__cvta_*` address conversions are NVIDIA-only: guard with #if defined(RA_CUDA)",
    r"__dp4a|__dp2a_lo|__dp2a_hi": "`__dp4a`/`__dp2a` are NVIDIA-only: write the byte products out",
    r"__v(?:abs|abss|add|adds|addus|avg|avgs|avgu|cmp\w+|hadd|hadds|haddu|max|maxs|maxu|min|mins|minu|neg|negs"
    r"|sad|sads|sadu|set\w+|sub|subs|subss|subus)[24]":
        "SIMD-within-a-word video intrinsics (`__v*2`/`__v*4`) are NVIDIA-only",
    r"__ldcg|__ldcv": "L2-only/volatile cached loads (`__ldcg`, `__ldcv`) have no HIP form; for data other "
                      "blocks write during the kernel use a volatile load or an atomic, else a plain load",
    r"__lanemask_lt|__lanemask_le|__lanemask_gt|__lanemask_ge|__lanemask_eq":
        "`__lanemask_*` differs between vendors: build it from ra_lane_id(), e.g. "
        "((ra_lane_mask)1 << ra_lane_id()) - 1",
    r"__syncthreads_and_sync|__barrier_sync": "NVIDIA-only barrier",
    r"__pipeline_\w+|__cluster_\w+|cluster_\w+_sync": "asynchronous copies and clusters are NVIDIA-only",
    r"__activemask": "`__activemask()` has no portable helper (rocarray's warp helpers assume the whole "
                     "warp is converged): restructure so every lane takes part, then use ra_ballot(1)",
}
_LEGACY_WARP = {
    "__shfl": "ra_shfl", "__shfl_up": "ra_shfl_up", "__shfl_down": "ra_shfl_down", "__shfl_xor": "ra_shfl_xor",
    "__ballot": "ra_ballot", "__any": "ra_ballot(p) != 0", "__all": "ra_ballot(!(p)) == 0",
}


def _full_mask(text, st):
    bare = text.replace(" ", "")
    while bare.startswith("(") and bare.endswith(")") and bare.count("(") == 1:
        bare = bare[1:-1]
    return bool(re.match(_FULL_MASK_LITERALS, bare)) or bare in st.full_masks


# --------------------------------------------------------------------------------------------
# pass 1: preprocessor directives and named constants
# --------------------------------------------------------------------------------------------

_INCLUDE_REASONS = (
    (r"cuda_fp16\.h(pp)?$", "fp16", "__half becomes ra_half, a 16-bit storage type: arithmetic goes through "
                                    "ra_half_to_float / ra_float_to_half"),
    (r"cuda_bf16\.h(pp)?$", "bf16", "__nv_bfloat16 becomes ra_bfloat16, a 16-bit storage type: arithmetic goes "
                                    "through ra_bfloat16_to_float / ra_float_to_bfloat16"),
    (r"cooperative_groups", None, "cooperative groups have no portable form: use __syncthreads() and the "
                                  "ra_* warp helpers"),
    (r"^(cub|thrust|cuda/)", None, "CUB, Thrust and libcu++ are not available to run-time compiled sources: "
                                   "use rocarray.prim from Python, or ra_warp_reduce / ra_block_reduce"),
    (r"^mma\.h$", None, "WMMA (tensor cores) is NVIDIA-only: guard it with #if defined(RA_CUDA) and keep a "
                        "portable fallback"),
    (r"^(c?stdint(\.h)?|inttypes\.h)$", None, "fixed-width integer types are rewritten to ra_i8 ... ra_u64"),
    (r"^(c?float(\.h)?|c?limits(\.h)?|math_constants\.h|c?math(\.h)?|math_functions\.h)$", None,
     "the constants used here are rewritten to literals; math functions are built in"),
    (r"^(cuda_runtime(_api)?\.h|cuda\.h|device_launch_parameters\.h|device_functions\.h|sm_\d+_intrinsics\.h"
     r"|hip/hip_runtime\.h|c?stdio(\.h)?|c?assert(\.h)?|c?stddef(\.h)?)$", None,
     "not needed: the compilers provide the device built-ins and printf"),
)


def _pass_directives(t, st):
    """``#include`` lines out; warp-size and full-mask constants (``#define`` or ``const``) noted or
    rewritten."""
    edits = []
    for m in re.finditer(r"^[ \t]*#[ \t]*(\w+)(.*)$", t.code, re.M):
        directive, line = m.group(1), t.line(m.start())
        if directive == "include":
            found = re.match(r'\s*([<"])([^>"]*)', t.text[m.start(2):m.end(2)])
            header = found.group(2).strip() if found else m.group(2).strip()
            quoted = bool(found and found.group(1) == '"')
            why = ("paste the device code it provides into this source" if quoted else
                   "the standard library and toolkit headers are not available to device code compiled at "
                   "run time")
            for pattern, flag, reason in _INCLUDE_REASONS:
                if not quoted and re.search(pattern, header):
                    why = reason
                    if flag:
                        setattr(st, flag, True)
                    break
            shown = f'"{header}"' if quoted else f"<{header}>"
            edits.append((t.stripped_start(m.start(), m.end()), t.stripped_end(m.start(), m.end()),
                          f"// hipify: removed #include {shown}"))
            st.warn(line, "include", f"#include {shown} removed (rocarray pastes its own headers in front of "
                                     f"every source; hiprtc would drop the line): {why}")
        elif directive == "define":
            d = re.match(r"\s+(\w+)(?!\()[ \t]+(.*)$", t.code[m.start(2):m.end()])
            if d:
                st.defined.add(d.group(1))
                start = m.start(2) + d.start(2)
                edits += _named_constant(t, st, d.group(1), start, t.stripped_end(start, m.end()))
            else:
                d = re.match(r"\s+(\w+)", m.group(2))
                if d:
                    st.defined.add(d.group(1))
    decl = re.compile(r"\b(?:constexpr|const)\s+(?:__device__\s+|__constant__\s+)?(?:static\s+)?"
                      r"(?:unsigned\s+int|unsigned|int|uint32_t|unsigned\s+long\s+long|size_t|auto)\s+(\w+)\s*"
                      r"(?:=\s*([^;,{}()]+?)|\{\s*([^;,{}()]+?)\s*\})\s*;")
    for m in decl.finditer(t.code):
        group = 2 if m.group(2) is not None else 3
        edits += _named_constant(t, st, m.group(1), m.start(group), m.end(group))
    return edits


def _named_constant(t, st, name, start, end):
    """Edits for one named constant (``#define NAME value`` or ``const int NAME = value;``)."""
    value = t.clean(start, end)
    bare = value.strip("()").rstrip("uU")
    if _full_mask(value, st):
        st.full_masks.add(name)
    elif re.match(_WARP_SIZE_NAME, name) and bare == "32":
        st.warp_size_names.add(name)
        return [(start, end, "RA_WARP_SIZE")]
    elif re.match(_WARP_SIZE_NAME, name) and bare == "64":
        st.warn(t.line(start), "warp-size", f"`{name}` is 64: if that is the warp size, write RA_WARP_SIZE")
    elif re.match(_LOG_WARP_NAME, name) and bare == "5":
        return [(start, end, "(RA_WARP_SIZE == 64 ? 6 : 5)")]
    elif re.match(_LANE_MASK_NAME, name) and bare.lower() in ("31", "0x1f"):
        return [(start, end, "(RA_WARP_SIZE - 1)")]
    return []


# --------------------------------------------------------------------------------------------
# pass 2: literal warp-size arithmetic and shuffle loops
# --------------------------------------------------------------------------------------------

_LITERAL_OPS = (
    (r"(?<![%])%(?!=)\s*(32)[uU]?(?![\w.])", "%", _LANE_NAME),
    (r"(?<![&])&(?![&=])\s*(31|0x1[fF])[uU]?(?![\w.])", "&", _LANE_NAME),
    (r"(?<![/])/(?![/=])\s*(32)[uU]?(?![\w.])", "/", _WARP_NAME),
    (r"(?<![>])>>(?![>=])\s*(5)[uU]?(?![\w.])", ">>", _WARP_NAME),
)
_THREADISH = r"threadIdx|blockDim|\btid\b|lane|warp"


def _left_operand(t, pos):
    """``(start, text)`` of the primary expression just before ``pos`` (an identifier chain, a call,
    an indexing, a cast or a parenthesized group)."""
    code = t.code
    end = t.stripped_end(0, pos)
    start = end
    while start > 0:
        ch = code[start - 1]
        if ch in ")]":
            depth, j = 0, start - 1
            while j >= 0:
                if code[j] in ")]":
                    depth += 1
                elif code[j] in "([":
                    depth -= 1
                    if depth == 0:
                        break
                j -= 1
            if j < 0:
                break
            start = j
        elif ch.isalnum() or ch in "_.":
            start -= 1
        elif code[start - 2:start] == "->":
            start -= 2
        else:
            break
    return start, code[start:end]


def _thread_vars(t, exact=False):
    """``{scope: names}`` of variables set from ``threadIdx`` (``exact``: to ``threadIdx.x`` alone,
    maybe cast), per function body (:meth:`_Text.scope`)."""
    init = r"(?:\(\s*\w+\s*\)\s*)?threadIdx\.x\s*[;,)]" if exact else r"[^;=]*\bthreadIdx\b"
    out = {}
    for m in re.finditer(rf"\b(\w+)\s*=\s*{init}", t.code):
        out.setdefault(t.scope(m.start()), set()).add(m.group(1))
    return out


def _in_scope(by_scope, t, pos):
    return by_scope.get(t.scope(pos), set()) | by_scope.get(-1, set())


def _pass_warp_literals(t, st):
    """Literal 32-lane arithmetic (``% 32``, ``& 31``, ``/ 32``, ``>> 5``, ``== 31``, ``< 32``)."""
    edits = []
    thread_vars = _thread_vars(t)
    for pattern, op, target_name in _LITERAL_OPS:
        for m in re.finditer(pattern, t.code):
            lit_start, lit_end = m.start(1), m.end()
            s_start, _ = t.statement(m.start())
            prefix = t.code[s_start:m.start()]
            targets = list(re.finditer(r"(\w+)\s*(?:\[[^\]]*\]\s*)?(?<![=!<>])=(?!=)", prefix))
            target = targets[-1].group(1) if targets else None
            op_start, operand = _left_operand(t, m.start())
            if not operand:
                continue
            line = t.line(m.start())
            warp_count = op in ("/", ">>") and re.fullmatch(r"\(?\s*blockDim\.x\s*(\+\s*31[uU]?\s*)?\)?", operand)
            if not warp_count and (target is None or not re.search(target_name, target)):
                named = target and (re.search(_LANE_NAME, target) or re.search(_WARP_NAME, target))
                local = _in_scope(thread_vars, t, m.start())
                threadish = "|".join([_THREADISH] + [rf"\b{re.escape(v)}\b" for v in local])
                if re.search(threadish, operand) or named:
                    st.warn(line, "warp-size", f"`{' '.join(operand.split())} {op} {m.group(1)}` assumes 32 lanes "
                                               f"if it is a lane or warp computation: write it with RA_WARP_SIZE "
                                               f"(ra_lane_id(), ra_warp_id()); left as is")
                continue
            if op == "%":
                edits.append((lit_start, lit_end, "RA_WARP_SIZE"))
                continue
            if op == "&":
                edits.append((lit_start, lit_end, "(RA_WARP_SIZE - 1)"))
                continue
            if op == "/":
                edits.append((lit_start, lit_end, "RA_WARP_SIZE"))
            elif (re.match(r"(==|!=|<|>|&&|\|\||[;),\]}?:&|^])", t.code[lit_end:].lstrip(_WS))
                  and t.code[:op_start].rstrip(_WS)[-1:] in ("=", "(", ",", "?", ":", "[", "{", ";")):
                edits.append((m.start(), lit_end, "/ RA_WARP_SIZE"))  # x >> 5 alone: x / RA_WARP_SIZE
            else:
                edits.append((lit_start, lit_end, "(RA_WARP_SIZE == 64 ? 6 : 5)"))
            rounded = re.search(r"\+\s*(31)[uU]?\s*\)$", operand)
            if rounded:
                edits.append((op_start + rounded.start(1), op_start + rounded.end(1), "RA_WARP_SIZE - 1"))
    for m in re.finditer(r"(?<![\w.])(\w+)\s*(==|!=|<|>=)\s*(31)[uU]?(?![\w.])", t.code):
        if re.search(_LANE_NAME, m.group(1)) and not t.is_member(m.start()):
            edits.append((m.start(3), m.end(), "(RA_WARP_SIZE - 1)"))  # the last lane
    exact_vars = _thread_vars(t, exact=True)
    for m in re.finditer(r"(?<![\w.])(threadIdx\.x|\w+)\s*(<|>=)\s*32[uU]?(?![\w.])", t.code):
        if m.group(1) != "threadIdx.x" and m.group(1) not in _in_scope(exact_vars, t, m.start()):
            continue
        st.warn(t.line(m.start()), "warp-size", f"`{m.group(1)} {m.group(2)} 32`: if it selects the first warp, "
                                                f"write RA_WARP_SIZE (or ra_warp_id() == 0); left as is")
    return edits + _shuffle_loops(t, st)


def _shuffle_loops(t, st):
    """``for`` loops over shuffle offsets that start at 16 or stop at 32: rewritten to RA_WARP_SIZE."""
    edits = []
    for m in re.finditer(r"\bfor\s*\(", t.code):
        parsed = t.call(m.end() - 1)
        if parsed is None:
            continue
        _, close = parsed
        header = t.code[m.end():close]
        parts = header.split(";")
        if len(parts) != 3:
            continue
        body_start = t.stripped_start(close + 1, len(t.code))
        if t.code[body_start:body_start + 1] == "{":
            body = t.call(body_start)
            body_end = body[1] if body else len(t.code)
        else:
            body_end = t.code.find(";", body_start)
        body_text = t.code[body_start:body_end]
        if not re.search(r"\b(__shfl\w*|ra_shfl\w*)\s*\(", body_text):
            continue
        init, cond, step = parts
        var = re.search(r"(\w+)\s*=\s*(\d+)\s*$", init)
        if not var:
            continue
        v, start_value = re.escape(var.group(1)), var.group(2)
        init_lit = m.end() + var.start(2)
        cond_off = m.end() + len(init) + 1
        halving = re.fullmatch(rf"\s*{v}\s*(/=\s*2|>>=\s*1|=\s*{v}\s*(/\s*2|>>\s*1))\s*", step)
        doubling = re.fullmatch(rf"\s*({v}\s*(\*=\s*2|<<=\s*1|\+=\s*{v}|=\s*{v}\s*(\*\s*2|<<\s*1)))\s*", step)
        line = t.line(m.start())
        if halving and start_value == "16" and re.fullmatch(rf"\s*({v}\s*(>\s*0|>=\s*1|!=\s*0)|0\s*<\s*{v})\s*", cond):
            edits.append((init_lit, init_lit + 2, "RA_WARP_SIZE / 2"))
        elif doubling and start_value == "1":
            c = re.fullmatch(rf"\s*{v}\s*(<\s*(32)|<=\s*(16))\s*", cond)
            if c and c.group(2):
                edits.append((cond_off + c.start(2), cond_off + c.end(2), "RA_WARP_SIZE"))
            elif c and c.group(3):
                edits.append((cond_off + c.start(3), cond_off + c.end(3), "RA_WARP_SIZE / 2"))
            elif re.search(r"\b(16|32)\b", cond):
                st.warn(line, "warp-size", "shuffle loop bound assumes 32 lanes: bound it with RA_WARP_SIZE")
        elif re.search(r"\b(16|32)\b", header):
            st.warn(line, "warp-size", "shuffle loop with a literal 16 or 32 assumes 32 lanes: loop over "
                                       "RA_WARP_SIZE (from RA_WARP_SIZE / 2 down, or up to RA_WARP_SIZE)")
    return edits


# --------------------------------------------------------------------------------------------
# pass 3: lane masks (ballot results) held in 64 bits
# --------------------------------------------------------------------------------------------

_COUNT_INIT = r"^\s*\(?\s*(__popc|__popcll|ra_popc64|__ffs|__ffsll|__clz|__clzll)\b|&\s*1[uU]?\s*\)?\s*$"
_LANE_SHIFT = r"(?<![\w.)])(1[uU]?[lL]{0,2})\s*<<\s*\(?\s*([\w.]+)"


def _pass_lane_masks(t, st):
    """Ballot results and masks built from them held in 64 bits, and counted in 64."""
    edits = []
    ballot = re.compile(rf"(?<![\w$])(?:{_BALLOT})\s*\(")
    statements = t.statements()

    masks = {}  # scope -> names of lane masks

    def names_in(text, pos):
        known = _in_scope(masks, t, pos)
        return {n for n in re.findall(r"(?<![\w.])([A-Za-z_]\w*)", text) if n in known}

    def lane_shift(text):
        return any(re.search(_LANE_NAME, m.group(2)) or m.group(2) == "threadIdx.x"
                   for m in re.finditer(_LANE_SHIFT, text))

    decls = {}
    for _ in range(4):  # masks derived from masks, to a fixed point
        for s, e in statements:
            d = re.match(_DECL, t.code[s:e])
            scope = t.scope(s)
            if not d or d.group(3) in masks.get(scope, ()):
                continue
            init = d.group(4)
            from_ballot = bool(ballot.search(init))
            if re.search(_COUNT_INIT, init) or (not from_ballot and re.fullmatch(_OTHER_CALL, init)):
                continue  # a count, a bit, or what some function returns
            if from_ballot or names_in(init, s) or lane_shift(init):
                masks.setdefault(scope, set()).add(d.group(3))
                decls[(scope, d.group(3))] = (s + d.start(2), s + d.end(2), d.group(2), from_ballot)
    for (_, name), (a, b, ctype, from_ballot) in decls.items():
        if re.fullmatch(_TYPE32, ctype):
            edits.append((a, b, "ra_lane_mask"))
            what = "a ballot result" if from_ballot else f"the lane mask `{name}`"
            st.warn(t.line(a), "lane-mask-32bit", f"{what} was declared 32-bit `{' '.join(ctype.split())}`: "
                                                  f"declared ra_lane_mask (64 bits; wave64 has 64 lanes)")
    for s, e in statements:
        text = t.code[s:e]
        has_ballot = bool(ballot.search(text))
        if not (has_ballot or names_in(text, s)):
            continue
        direct = re.search(rf"=(?!=)\s*(?:\(\s*\w+(?:\s+\w+)?\s*\)\s*)?(?:{_BALLOT})\s*\(", text)
        if has_ballot and direct:
            a = re.match(r"^(\w+)\s*=(?!=)", text)
            element = re.match(r"^([\w.]+)\s*(\[[^=]*\]|(\.|->)\w+)\s*=(?!=)", text)
            if a and (t.scope(s), a.group(1)) not in decls:
                masks.setdefault(t.scope(s), set()).add(a.group(1))
                decl32 = re.search(rf"\b{_TYPE32}\s+(?:\w+\s*,\s*)*{a.group(1)}\s*[;,=\[]", t.code)
                if decl32:
                    st.warn(t.line(s + a.start(1)), "lane-mask-32bit",
                            f"a ballot result is stored in `{a.group(1)}`, declared 32-bit on line "
                            f"{t.line(decl32.start())}: declare it ra_lane_mask (64 bits; wave64 has 64 lanes)")
            elif element and not re.search(rf"\b{_TYPE64}\s+(?:\w+\s*(?:\[[^\]]*\]\s*)?,\s*)*"
                                           rf"{re.escape(element.group(1))}\s*\[", t.code):
                target = t.clean(s, s + text.index("="))
                st.warn(t.line(s), "lane-mask-32bit", f"a ballot result is stored into `{target}`: its type must "
                                                      f"hold 64 bits (ra_lane_mask)")
        for m in re.finditer(_LANE_SHIFT, text):
            if re.search(_LANE_NAME, m.group(2)) or m.group(2) == "threadIdx.x":
                edits.append((s + m.start(1), s + m.end(1), "(ra_lane_mask)1"))
    for start, name, paren in t.calls(r"__popc|__ffs|__clz|__brev"):
        parsed = t.call(paren)
        if not parsed or not parsed[0]:
            continue
        arg = t.code[parsed[0][0][0]:parsed[0][-1][1]]
        if not (ballot.search(arg) or names_in(arg, start)):
            continue
        if name == "__popc":
            edits.append((start, start + len(name), "ra_popc64"))
        elif name == "__ffs":
            edits.append((start, start + len(name), "__ffsll"))
        else:
            st.warn(t.line(start), "lane-mask-arithmetic",
                    f"`{name}` on a lane mask counts 32 bits: on wave64 the mask has 64 (use {name}ll and "
                    f"check the arithmetic around it)")
    _lane_mask_arithmetic(t, st, ballot, masks)
    return edits


def _lane_mask_arithmetic(t, st, ballot, masks):
    """Warnings for lane masks combined with 32-bit constants, negated, or cast to 32 bits."""
    code = t.code
    spans = [(m.start(1), m.end(1)) for m in re.finditer(r"(?<![\w.])([A-Za-z_]\w*)(?!\s*\()", code)
             if m.group(1) in _in_scope(masks, t, m.start())]
    for m in ballot.finditer(code):
        parsed = t.call(m.end() - 1)
        if parsed and not t.is_member(m.start()):
            spans.append((m.start(), parsed[1] + 1))
    literal_op = r"(0[xX][0-9a-fA-F]+|\d+)[uUlL]*"
    seen = set()
    for a, b in spans:
        before, after = code[:a].rstrip(_WS), code[b:].lstrip(_WS)
        line = t.line(a)
        what = t.clean(a, b)
        reason = None
        if before.endswith("~") and not re.match(r"\+\s*1\b", after):  # ~m + 1 is -m: fine
            reason = (f"`~{what}` sets the bits above the warp's lanes (32 to 63 on NVIDIA): mask it before "
                      f"counting or comparing")
        elif re.search(rf"\(\s*{_TYPE32}\s*\)$|static_cast\s*<\s*{_TYPE32}\s*>\s*\($", before):
            reason = f"`{what}` is cast to 32 bits: wave64 masks have 64"
        else:
            right = re.match(rf"(==|!=|<=|>=|<<|>>|[&|^+\-<>])\s*{literal_op}", after)
            left = re.search(rf"{literal_op}\s*(==|!=|<=|>=|<<|>>|[&|^+\-<>])$", before)
            value = right.group(2) if right else left.group(1) if left else None
            if value is not None and int(value, 0 if value[:2].lower() == "0x" else 10) not in (0, 1):
                reason = f"`{what}` is combined with the constant {value}, which assumes 32 lanes"
        if reason and (line, reason) not in seen:
            seen.add((line, reason))
            st.warn(line, "lane-mask-arithmetic", reason + " (use ra_lane_mask constants and RA_WARP_SIZE)")


# --------------------------------------------------------------------------------------------
# pass 4: warp intrinsics, half arithmetic, cache-hinted loads and stores
# --------------------------------------------------------------------------------------------

def _pass_calls(t, st):
    """Calls rewritten argument by argument: warp collectives, fp16 arithmetic, cache hints."""
    edits = []
    names = "|".join(list(_SHUFFLES) + ["__ballot_sync", "__any_sync", "__all_sync", "__syncwarp",
                                        "__reduce_add_sync", "__reduce_min_sync", "__reduce_max_sync",
                                        "__ldcs", "__ldca", "__ldlu", "__stcs", "__stwb", "__stcg", "__stwt"]
                     + list(_HALF_ARITHMETIC))
    for start, name, paren in t.calls(names):
        parsed = t.call(paren)
        if parsed is None:
            continue
        args, close = parsed
        text = [t.clean(a, b) for a, b in args]
        line = t.line(start)
        first = t.stripped_start(*args[1]) if len(args) > 1 else close
        if name in _SHUFFLES:
            if len(args) not in (3, 4):
                continue
            if not _full_mask(text[0], st):
                st.warn(line, "shuffle-mask", f"`{name}` with the mask `{text[0]}`: rocarray's shuffles act on "
                                              f"the whole warp; only a full mask is rewritten")
                continue
            if len(args) == 4:
                width = text[3]
                if width == "32":
                    st.warn(line, "warp-size", f"`{name}` with width 32: now a shuffle over all RA_WARP_SIZE "
                                               f"lanes; check the offsets and lanes it reads")
                elif width not in st.warp_size_names:
                    st.warn(line, "shuffle-width", f"`{name}` over sub-groups of {width} lanes: rocarray's "
                                                   f"shuffles span the whole warp; rewrite the lane arithmetic "
                                                   f"by hand")
                    continue
                edits.append((args[2][1], args[3][1], ""))
            edits.append((start, first, _SHUFFLES[name] + "("))
            if text[2] in ("16", "31", "32"):
                st.warn(line, "warp-size", f"`{name}` with the literal {text[2]} assumes 32 lanes: on wave64 "
                                           f"(RA_WARP_SIZE 64) write it in terms of RA_WARP_SIZE")
            elif name == "__shfl_sync" and re.search(r"[+-]", text[2]):
                st.warn(line, "shuffle-lane", f"ra_shfl needs 0 <= `{text[2]}` < RA_WARP_SIZE (HIP does not "
                                              f"wrap lanes the way CUDA does)")
        elif name in ("__ballot_sync", "__any_sync", "__all_sync"):
            if len(args) != 2:
                continue
            if not _full_mask(text[0], st):
                st.warn(line, "ballot-mask", f"`{name}` with the mask `{text[0]}`: only a full mask is rewritten "
                                             f"to ra_ballot")
                continue
            prefix, suffix = {"__ballot_sync": ("ra_ballot(", ")"), "__any_sync": ("(ra_ballot(", ") != 0)"),
                              "__all_sync": ("(ra_ballot(!(", ")) == 0)")}[name]
            edits.append((start, first, prefix))
            edits.append((close, close + 1, suffix))
        elif name == "__syncwarp":
            if args and not _full_mask(text[0], st):
                st.warn(line, "syncwarp-mask", f"`__syncwarp({text[0]})`: only a full-warp __syncwarp is "
                                               f"rewritten (to ra_warp_sync())")
                continue
            edits.append((start, close + 1, "ra_warp_sync()"))
        elif name.startswith("__reduce_"):
            if len(args) != 2 or not _full_mask(text[0], st):
                st.warn(line, "ballot-mask", f"`{name}` with a partial mask has no portable form")
                continue
            op = {"add": "ra_op_sum", "min": "ra_op_min", "max": "ra_op_max"}[name.split("_")[3]]
            edits.append((start, first, "ra_warp_reduce("))
            edits.append((close, close + 1, f", {op}())"))
        elif name in ("__ldcs", "__ldca", "__ldlu") and len(args) == 1:
            edits.append((start, paren, "(*"))
            edits.append((close, close + 1, "))"))
            st.warn(line, "cache-hint", f"`{name}` rewritten to a plain load: the cache hint has no portable form")
        elif name.startswith("__st") and len(args) == 2:
            edits.append((start, paren + 1, "(*("))
            edits.append((args[0][1], first, ") = ("))
            edits.append((close, close + 1, "))"))
            st.warn(line, "cache-hint", f"`{name}` rewritten to a plain store: the cache hint has no portable form")
        elif name in _HALF_ARITHMETIC and len(args) == 2:
            if st.fp16 == st.bf16:
                st.warn(line, "half", f"`{name}`: convert to float, compute, convert back (ra_half_to_float / "
                                      f"ra_float_to_half or the bfloat16 ones)")
                continue
            to, back = (("ra_half_to_float", "ra_float_to_half") if st.fp16 else
                        ("ra_bfloat16_to_float", "ra_float_to_bfloat16"))
            # Exact: a float result of one +, -, * or / of two 16-bit values rounds to the same 16-bit value.
            edits.append((start, paren + 1, f"{back}({to}("))
            edits.append((args[0][1], first, f") {_HALF_ARITHMETIC[name]} {to}("))
            edits.append((close, close + 1, "))"))
    return edits


# --------------------------------------------------------------------------------------------
# pass 5: names
# --------------------------------------------------------------------------------------------

def _pass_names(t, st):
    """Names rewritten one for one: the warp size, types, conversions, constants, atomics."""
    edits = []
    code = t.code
    half_lines = set()

    def each(pattern):
        for m in re.finditer(rf"(?<![\w$])(?:{pattern})(?![\w$])", code):
            if not t.is_member(m.start()):
                yield m

    for m in each("warpSize"):
        edits.append((m.start(), m.end(), "RA_WARP_SIZE"))
    for m in re.finditer(r"(?<![\w$.>:])(?:std\s*::\s*)?(u?int(?:8|16|32|64|ptr)_t)(?![\w$])", code):
        edits.append((m.start(), m.end(), _INT_TYPES[m.group(1)]))
    types = {"__half": "ra_half", "__nv_bfloat16": "ra_bfloat16"}
    half_variable = re.search(r"\b(?:int|unsigned|float|double|auto|long|short|size_t|bool)\s+half\s*[=;,)\[]", code)
    if st.fp16 and half_variable:
        st.warn(t.line(half_variable.start()), "half", "`half` names a variable here and cuda_fp16.h's type: it is "
                                                       "left as it is; write ra_half where the type is meant")
    elif st.fp16:
        types["half"] = "ra_half"
    if st.bf16:
        types["nv_bfloat16"] = "ra_bfloat16"
    for m in each("|".join(types)):
        word = m.group(0)
        after = code[m.end():].lstrip(_WS)[:1]
        if word == "half" and not (after.isalpha() or after in "_*&>),"):
            continue  # `half` as a variable's name
        edits.append((m.start(), m.end(), types[word]))
        half_lines.add((t.line(m.start()), word, types[word]))
    for line, word, new in sorted(half_lines):
        st.warn(line, "half", f"`{word}` became {new}, a 16-bit storage type without arithmetic: convert with "
                              f"{new}_to_float / ra_float_to_{new[3:]} for arithmetic, comparisons and literals")
    for m in each("|".join(_CONVERSIONS)):
        edits.append((m.start(), m.end(), _CONVERSIONS[m.group(0)]))
    for m in each(_HALF_OTHER):
        st.warn(t.line(m.start()), "half", f"`{m.group(0)}` has no ra_* counterpart: convert to float with "
                                           f"ra_half_to_float / ra_bfloat16_to_float, compute, convert back")
    for m in each("__half2|half2|__nv_bfloat162|nv_bfloat162"):
        st.warn(t.line(m.start()), "half", f"`{m.group(0)}` (two packed 16-bit values) has no rocarray type: use "
                                           f"two ra_half / ra_bfloat16, or float2")
    constants = [c for c in _CONSTANTS if c not in st.defined]
    if constants:
        for m in each("|".join(constants)):
            edits.append((m.start(), m.end(), _CONSTANTS[m.group(0)]))
    for m in each(r"atomic(?:Add|Sub|Exch|Min|Max|Inc|Dec|CAS|And|Or|Xor)_block"):
        edits.append((m.start(), m.end(), m.group(0)[:-len("_block")]))
    return edits


# --------------------------------------------------------------------------------------------
# pass 6: what cannot be rewritten
# --------------------------------------------------------------------------------------------

_CUDA_MACROS = r"RA_CUDA|RA_CUDA_ARCH|__CUDA_ARCH__|__NVCC__"
_HIP_MACROS = r"RA_HIP|__HIP_PLATFORM_AMD__|__HIP_PLATFORM_HCC__|__HIP_DEVICE_COMPILE__|__HIP__|__HIPCC__"


def _branch_kind(directive, condition):
    """``'cuda'``, ``'hip'`` or ``None``: whose code a preprocessor branch holds."""
    condition = " ".join(condition.split())
    if "||" in condition:
        return None
    for macros, kind, other in ((_CUDA_MACROS, "cuda", "hip"), (_HIP_MACROS, "hip", "cuda")):
        if directive == "ifdef" and re.fullmatch(rf"({macros})", condition):
            return kind
        if directive == "ifndef" and re.fullmatch(rf"({macros})", condition):
            return other
        if directive in ("if", "elif"):
            if re.search(rf"!\s*defined\s*\(?\s*({macros})\b", condition):
                return other
            if re.search(rf"(?<!!)\b(defined\s*\(?\s*)?({macros})\b", condition):
                return kind
    return None


def _vendor_lines(t):
    """``{line: 'cuda' | 'hip'}`` for lines inside a vendor-only preprocessor branch."""
    frames, out = [], {}
    for number, line in enumerate(t.code.split("\n"), start=1):
        d = re.match(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)$", line)
        if d:
            directive, condition = d.group(1), d.group(2).replace(_COMMENT, " ")
            if directive in ("if", "ifdef", "ifndef"):
                frames.append([_branch_kind(directive, condition), _branch_kind(directive, condition)])
            elif directive == "elif" and frames:
                frames[-1][1] = _branch_kind("elif", condition)
            elif directive == "else" and frames:
                first = frames[-1][0]
                frames[-1][1] = {"cuda": "hip", "hip": "cuda"}.get(first)
            elif directive == "endif" and frames:
                frames.pop()
            continue
        kinds = {f[1] for f in frames if f[1]}
        if len(kinds) == 1:
            out[number] = kinds.pop()
    return out


def _pass_warnings(t, st):
    """Warnings for what no rule rewrites; returns :func:`_vendor_lines` of the final text."""
    code = t.code
    vendor = _vendor_lines(t)

    def warn_each(pattern, rule, reason, per_line=True):
        seen = set()
        for m in re.finditer(pattern, code):
            line = t.line(m.start())
            if per_line and line in seen:
                continue
            seen.add(line)
            st.warn(line, rule, reason(m) if callable(reason) else reason)

    for m in re.finditer(r"(?<![\w$])(asm|__asm__|__asm)\s*(volatile|__volatile__)?\s*[({]", code):
        line = t.line(m.start())
        if vendor.get(line) == "cuda":
            st.warn(line, "inline-asm", "inline assembly (PTX) under a CUDA-only #if: kept; make sure the other "
                                        "branch does the same work portably")
        elif vendor.get(line) == "hip":
            st.warn(line, "inline-asm", "inline assembly (AMD GCN) under a HIP-only #if: kept; make sure the other "
                                        "branch does the same work portably")
        else:
            st.warn(line, "inline-asm", "inline assembly is vendor-specific (PTX compiles only for NVIDIA): put it "
                                        "under #if defined(RA_CUDA) with a portable #else branch")
    warn_each(r"(?<![\w$])(cooperative_groups\b|cg\s*::|this_thread_block\s*\(|this_grid\s*\(|"
              r"tiled_partition\b|thread_block_tile\b|coalesced_threads\s*\(|grid_group\b)",
              "cooperative-groups", "cooperative groups have no portable form: use __syncthreads(), the ra_* warp "
                                    "helpers, or split a grid-wide sync into two kernels")
    warn_each(r"(?<![\w$])(texture\s*<|surface\s*<|tex(1D|2D|3D|1Dfetch|1DLayered|2DLayered|Cubemap|2Dgather"
              r"|[123]DLod|[123]DGrad)\b|surf(1D|2D|3D|1DLayered|2DLayered|Cubemap)(read|write)\b"
              r"|cuda(Texture|Surface)Object_t\b)",
              "texture", "textures and surfaces have no rocarray form: read the array through a pointer")
    warn_each(r"<<<", "dynamic-parallelism", "a kernel launch in the source: launching from device code (dynamic "
                                             "parallelism) has no HIP equivalent, and host code belongs in Python")
    warn_each(r"(?<![\w$.])(cudaDeviceSynchronize|cudaLaunchDevice|cudaGetParameterBuffer|cudaStreamTailLaunch"
              r"|cudaStreamFireAndForget|cudaGraphLaunch)\b",
              "dynamic-parallelism", lambda m: f"`{m.group(1)}` in device code is dynamic parallelism, which has "
                                               f"no HIP equivalent")
    warn_each(r"(?<![\w$.])(cuda(?!DeviceSynchronize\b|LaunchDevice\b|GetParameterBuffer\b|StreamTailLaunch\b"
              r"|StreamFireAndForget\b|GraphLaunch\b|TextureObject_t\b|SurfaceObject_t\b)[A-Z]\w*)",
              "runtime-api", lambda m: f"CUDA runtime API `{m.group(1)}`: rocarray sources hold device code only; "
                                       f"allocate, copy and launch from Python (CuPy arrays, rocarray functions)")
    warn_each(r"(?<![\w$.])(nvcuda\s*::|wmma\s*::)", "wmma",
              "WMMA (tensor cores) is NVIDIA-only: guard it with #if defined(RA_CUDA) and keep a portable fallback")
    warn_each(rf"(?<![\w$.])({'|'.join(_LEGACY_WARP)})\s*\(", "legacy-warp",
              lambda m: f"`{m.group(1)}` (without _sync) is gone from CUDA for sm_70+: once the whole warp takes "
                        f"part, use {_LEGACY_WARP[m.group(1)]}", per_line=False)
    # One scan for every NVIDIA-only name: group k is the k-th pattern.
    patterns = list(_NVIDIA_ONLY)
    alternation = "|".join(f"(?P<p{k}>{p})" for k, p in enumerate(patterns))
    seen = set()
    for m in re.finditer(rf"(?<![\w$.])(?:{alternation})\s*\(", code):
        pattern = patterns[int(m.lastgroup[1:])]
        rule = "activemask" if pattern == "__activemask" else "nvidia-only"
        if (t.line(m.start()), pattern) not in seen:
            seen.add((t.line(m.start()), pattern))
            st.warn(t.line(m.start()), rule, _NVIDIA_ONLY[pattern])
    for m in re.finditer(r"(?<![\w$])__launch_bounds__\s*\(", code):
        parsed = t.call(m.end() - 1)
        if parsed and len(parsed[0]) > 1:
            st.warn(t.line(m.start()), "launch-bounds",
                    "__launch_bounds__ with a second argument: CUDA reads it as minimum blocks per "
                    "multiprocessor, HIP as minimum waves per execution unit; keep only the first")
    extern_c_blocks = []
    for m in re.finditer(r'\bextern\s*"\x01"\s*\{', code):
        block = t.call(m.end() - 1)
        extern_c_blocks.append((m.start(), block[1] if block else len(code)))
    for m in re.finditer(r"(?<![\w$])__global__(?![\w$])", code):
        s, _ = t.statement(m.start())
        head = code[s:m.start()]
        if t.code[t.line_span(t.line(m.start()))[0]:m.start()].lstrip().startswith("#"):
            continue  # a macro's body
        rest = next((n for n in re.finditer(r"(\w+)\s*\(", code[m.end():m.end() + 400])
                     if n.group(1) not in ("__launch_bounds__", "__attribute__", "alignas")), None)
        if (re.search(r'\bextern\s*"\x01"', head) or "template" in head or
                any(a < m.start() < b for a, b in extern_c_blocks)):
            continue
        name = rest.group(1) if rest else "kernel"
        st.warn(t.line(m.start()), "linkage", f"kernel `{name}` has C++ linkage: write extern \"C\" __global__ "
                                              f"(or RA_KERNEL) to look it up by its plain name, or pass it in "
                                              f"name_expressions")
    return vendor


# --------------------------------------------------------------------------------------------
# the public function
# --------------------------------------------------------------------------------------------

def hipify(cuda_source):
    """Rewrite a CUDA kernel source into rocarray's portable form (one source for AMD and NVIDIA).

    The result is meant for rocarray's compile path: no ``#include`` lines (rocarray pastes its
    portability headers in front), the warp size as ``RA_WARP_SIZE`` (64 on CDNA, 32 on NVIDIA and
    RDNA) and warp collectives through the prelude's helpers, whose ballots are 64-bit. Check the
    result with :func:`rocarray.compile_check`.

    Parameters
    ----------
    cuda_source : str
        The text of a CUDA source file (device code).

    Returns
    -------
    hip_source : str
        The rewritten text. It has exactly the lines of the input, so a warning's line number holds
        in both; comments and string literals are never changed.
    warnings : list of HipifyWarning
        ``(line, reason, rule)`` for each thing that was not rewritten or needs a look, sorted by
        line; ``str(w)`` is ``'line N: reason'``.

    Raises
    ------
    TypeError
        When ``cuda_source`` is not a string.

    See Also
    --------
    compile_check : Compile the result for sm_90, gfx90a and gfx940 without a GPU.

    Notes
    -----
    Rewritten:

    * ``#include`` lines become comments (with a warning saying what replaces the header).
    * ``__shfl_sync``, ``__shfl_up_sync``, ``__shfl_down_sync``, ``__shfl_xor_sync`` with a full
      mask (``0xffffffff``, ``-1``, ``~0u``, or a name ``#define``\\ d or declared ``const`` to one
      in the file) become ``ra_shfl``, ``ra_shfl_up``, ``ra_shfl_down``, ``ra_shfl_xor``; a width
      argument equal to the warp size is dropped. ``__ballot_sync`` becomes ``ra_ballot`` (64-bit),
      ``__any_sync(m, p)`` ``(ra_ballot(p) != 0)``, ``__all_sync(m, p)`` ``(ra_ballot(!(p)) == 0)``,
      ``__syncwarp()`` ``ra_warp_sync()``, ``__reduce_add/min/max_sync(m, v)``
      ``ra_warp_reduce(v, ra_op_sum())`` (and min, max).
    * Lane masks: a ballot result (or a mask built from one, or ``1u << lane``) declared in a 32-bit
      type is declared ``ra_lane_mask``; ``1u << lane`` next to one becomes ``(ra_lane_mask)1 <<
      lane``; ``__popc`` and ``__ffs`` of one become ``ra_popc64`` and ``__ffsll``.
    * ``warpSize`` becomes ``RA_WARP_SIZE``, and so does the value of a warp-size constant
      (``#define WARP_SIZE 32``, ``constexpr int kWarpSize = 32;``; a log2 of it and a lane mask of
      31 follow). ``% 32``, ``& 31``, ``/ 32`` and ``>> 5`` become ``RA_WARP_SIZE`` forms where the
      result is stored in a variable named for a lane or a warp (``lane``, ``warp_id``,
      ``num_warps``); ``(n + 31) / 32`` rounds with ``RA_WARP_SIZE - 1``. A ``for`` loop over shuffle
      offsets from 16 down, or up to 32, runs from ``RA_WARP_SIZE / 2`` or up to ``RA_WARP_SIZE``.
    * ``__half``, ``__nv_bfloat16`` (and ``half``, ``nv_bfloat16`` when their header was included)
      become ``ra_half``, ``ra_bfloat16``; ``__half2float``, ``__float2half[_rn]`` and the bfloat16
      ones become the ``ra_*`` conversions; ``__hadd``, ``__hsub``, ``__hmul``, ``__hdiv`` compute
      in float and round once (exact for one operation of two 16-bit values).
    * ``uint32_t`` and the other fixed-width types become ``ra_u32`` and friends (NVRTC has no
      ``<stdint.h>``); ``FLT_MAX``, ``INFINITY``, ``CUDART_INF_F`` and similar constants become
      literals; ``atomicAdd_block`` and the other ``_block`` atomics become the device-wide ones.
    * ``__ldcs``, ``__ldca``, ``__ldlu`` become plain loads and ``__stcs``, ``__stcg``, ``__stwb``,
      ``__stwt`` plain stores (with a warning: the cache hint is lost). ``__ldg`` is left as it is:
      both compilers have it (on AMD it is a plain load).

    Warned about and left as they are: inline assembly (softer wording under a CUDA-only ``#if``),
    non-full shuffle, ballot and ``__syncwarp`` masks, sub-warp shuffle widths, ``__activemask``,
    lane masks negated, cast to 32 bits or combined with 32-bit constants, ``__clz``/``__brev`` of a
    mask, ballots stored into a 32-bit variable declared elsewhere or into an array or member,
    literal 32-lane arithmetic on thread indices that is not clearly a lane or warp computation,
    shuffle offsets of 16, cooperative groups, legacy ``__shfl``/``__ballot``/``__any``/``__all``,
    textures and surfaces, launches (``<<<``) and other CUDA runtime calls, WMMA, NVIDIA-only
    intrinsics (``__nanosleep``, ``__trap``, ``__dp4a``, ``__ldcg``, ``__match_any_sync``, ...),
    packed ``half2`` types and fp16 functions without an ``ra_*`` counterpart, two-argument
    ``__launch_bounds__`` (whose second argument means something else to HIP), and ``__global__``
    functions without ``extern "C"``. Inside a CUDA-only ``#if`` branch (``RA_CUDA``,
    ``__CUDA_ARCH__``) only the inline-assembly note is given: that code never reaches AMD.

    Limits: this is a token and regular-expression rewriter, not a C++ parser. It does not expand
    macros (a shuffle hidden in a macro body is rewritten only where the macro is defined, if its
    text is a plain call), follow types (a ``half`` parameter of a template, a mask passed to a
    function), or see template angle brackets when splitting call arguments (a top-level comma
    inside ``f<a, b>(x)`` splits an argument). Lane and warp arithmetic is recognised by variable
    names. Read the warnings and compile the result for every target.

    Examples
    --------
    >>> src, warnings = hipify("v += __shfl_down_sync(0xffffffff, v, 1);")
    >>> src
    'v += ra_shfl_down(v, 1);'
    """
    if not isinstance(cuda_source, str):
        raise TypeError(f"cuda_source must be the source text (a str), not {type(cuda_source).__name__}")
    st = _State()
    text = cuda_source
    for run in (_pass_directives, _pass_warp_literals, _pass_lane_masks, _pass_calls, _pass_names):
        t = _Text(text)
        edits = run(t, st)
        if run is not _pass_directives:  # code only NVIDIA compiles may keep NVIDIA's idioms
            vendor = _vendor_lines(t)
            edits = [e for e in edits if vendor.get(t.line(e[0])) != "cuda"]
        text = _apply(t, edits)
    vendor = _pass_warnings(_Text(text), st)
    out, seen = [], set()
    for w in sorted(st.warnings, key=lambda w: (w.line, w.rule, w.reason)):
        if (w.line, w.reason) in seen:
            continue
        if vendor.get(w.line) == "cuda" and w.rule not in ("inline-asm", "include"):
            continue
        if vendor.get(w.line) == "hip" and w.rule == "legacy-warp":
            continue  # HIP's own names
        seen.add((w.line, w.reason))
        out.append(w)
    return text, out
