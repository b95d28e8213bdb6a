"""The source-text model of :func:`rocarray.hipify`: comments and literals masked (same length,
newlines kept), calls and statements found in what is left, edits applied without moving lines,
and the warnings a rewrite collects."""

import bisect
import re
from typing import NamedTuple


class HipifyWarning(NamedTuple):
    """Something :func:`hipify` could not rewrite safely, or rewrote with a caveat.

    ``line`` is 1-based and the same in the input and the output; ``rule`` is a short tag
    (``'inline-asm'``, ``'shuffle-mask'``, ...) to filter on; ``str()`` gives ``'line N: reason'``.
    """

    line: int
    reason: str
    rule: str

    def __str__(self):
        return f"line {self.line}: {self.reason}"


# --------------------------------------------------------------------------------------------
# scanning: comments and literals masked, calls and statements found in what is left
# --------------------------------------------------------------------------------------------

_COMMENT, _LITERAL = "\x00", "\x01"
_WS = " \t\n\r\f\v" + _COMMENT


def _mask(text):
    """``(code, comments)``: ``text`` with comment characters replaced by ``\\x00`` and the insides of
    string/character literals by ``\\x01`` (quotes and newlines kept), and the comments' spans."""
    pieces, comments, pos, n = [], [], 0, len(text)
    interesting = re.compile(r"""//|/\*|["']""")
    while True:
        m = interesting.search(text, pos)
        if m is None:
            break
        i, kind = m.start(), m.group()
        if kind == "//":
            end = i
            while True:  # a line comment ending in a backslash continues on the next line
                end = text.find("\n", end)
                if end == -1:
                    end = n
                    break
                if text[end - 1] != "\\":
                    break
                end += 1
            comments.append((i, end))
            pieces += [text[pos:i], re.sub(r"[^\n]", _COMMENT, text[i:end])]
        elif kind == "/*":
            end = text.find("*/", i + 2)
            end = n if end == -1 else end + 2
            comments.append((i, end))
            pieces += [text[pos:i], re.sub(r"[^\n]", _COMMENT, text[i:end])]
        elif kind == "'" and _digit_separator(text, i):
            end = i + 1
            pieces.append(text[pos:end])
        else:
            end = _literal_end(text, i)
            pieces += [text[pos:i + 1], re.sub(r"[^\n]", _LITERAL, text[i + 1:end - 1]), text[end - 1:end]]
        pos = end
    pieces.append(text[pos:])
    return "".join(pieces), comments


def _digit_separator(text, i):
    """Whether the quote at ``i`` is a C++14 digit separator (``1'000'000``) rather than a literal."""
    j = i
    while j > 0 and (text[j - 1].isalnum() or text[j - 1] in "_.'"):
        j -= 1
    return j < i and text[j].isdigit()


def _literal_end(text, i):
    """Index just past the string or character literal whose opening quote is at ``i``."""
    quote = text[i]
    prefix = re.search(r"(?<![\w$])(?:u8|[uUL])?R$", text[max(0, i - 3):i])
    if quote == '"' and prefix:
        m = re.compile(r'"([^()\\\s]{0,16})\(').match(text, i)
        if m:  # raw string R"delim( ... )delim"
            close = text.find(")" + m.group(1) + '"', m.end())
            return len(text) if close == -1 else close + len(m.group(1)) + 2
    j = i + 1
    while j < len(text):
        if text[j] == "\\":
            j += 2
            continue
        if text[j] == quote or text[j] == "\n":
            return j + 1
        j += 1
    return len(text)


class _Text:
    """One version of the source with its masked code, comment spans and line index."""

    def __init__(self, text):
        self.text = text
        self.code, self.comments = _mask(text)
        self._starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self._bodies = None

    def line(self, pos):
        return bisect.bisect_right(self._starts, pos)

    def line_span(self, line):
        start = self._starts[line - 1]
        end = self.text.find("\n", start)
        return start, (len(self.text) if end == -1 else end)

    def clean(self, start, end):
        """The code in ``[start, end)`` with comments dropped and whitespace collapsed."""
        return " ".join(self.code[start:end].replace(_COMMENT, " ").split())

    def is_member(self, pos):
        """Whether the name starting at ``pos`` follows ``.``, ``->`` or ``::``."""
        before = self.code[:pos].rstrip(_WS)
        return before.endswith((".", "->", "::"))

    def call(self, open_paren):
        """``(args, close)`` of the call whose ``(`` is at ``open_paren``: ``args`` holds each
        argument's ``(start, end)``; ``None`` when the parentheses do not balance."""
        code = self.code
        depth, start, args = 0, open_paren + 1, []
        for i in range(open_paren, len(code)):
            ch = code[i]
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
                if depth == 0:
                    if args or code[start:i].strip(_WS):
                        args.append((start, i))
                    return args, i
            elif ch == "," and depth == 1:
                args.append((start, i))
                start = i + 1
        return None

    def calls(self, names):
        """``(name start, name, open paren)`` of every call of one of ``names`` (a regex
        alternation) that is not a member (``x.name(...)``)."""
        for m in re.finditer(rf"(?<![\w$])({names})\s*\(", self.code):
            if not self.is_member(m.start()):
                yield m.start(), m.group(1), m.end() - 1

    def statement(self, pos):
        """``(start, end)`` of the statement around ``pos``: between ``;``, ``{`` or ``}``, after the
        last preprocessor line before ``pos`` and without leading whitespace or comments."""
        code = self.code
        start = max(code.rfind(c, 0, pos) for c in ";{}") + 1
        ends = [e for e in (code.find(c, pos) for c in ";{}") if e != -1]
        return self._trim(start, pos), (min(ends) if ends else len(code))

    def statements(self):
        """Every statement's ``(start, end)`` in order (see :meth:`statement`)."""
        out, start = [], 0
        for m in re.finditer(r"[;{}]|$", self.code):
            s = self._trim(start, m.start())
            if s < m.start():
                out.append((s, m.start()))
            start = m.end()
            if m.start() == len(self.code):
                break
        return out

    def _trim(self, start, end):
        for m in re.finditer(r"^[ \t]*#.*$", self.code[start:end], re.M):
            start = max(start, min(end, start + m.end()))
        return self.stripped_start(start, end)

    def function_bodies(self):
        """``(start, end)`` of each outermost brace block opened right after a ``)``: the bodies of
        functions, where local names live."""
        if self._bodies is None:
            code, out, depth, start, base = self.code, [], 0, None, 0
            for m in re.finditer(r"[{}]", code):
                if m.group() == "{":
                    j = m.start()
                    while j > 0 and code[j - 1] in _WS:
                        j -= 1
                    if start is None and code[j - 1:j] == ")":
                        start, base = m.start(), depth
                    depth += 1
                else:
                    depth -= 1
                    if start is not None and depth <= base:
                        out.append((start, m.end()))
                        start = None
            self._bodies, self._body_starts = out, [b[0] for b in out]
        return self._bodies

    def scope(self, pos):
        """Index of the function body holding ``pos`` (:meth:`function_bodies`), -1 outside any."""
        bodies = self.function_bodies()
        k = bisect.bisect_right(self._body_starts, pos) - 1
        return k if k >= 0 and pos < bodies[k][1] else -1

    def stripped_start(self, start, end):
        """First position in ``[start, end)`` that is not whitespace or comment."""
        while start < end and self.code[start] in _WS:
            start += 1
        return start

    def stripped_end(self, start, end):
        while end > start and self.code[end - 1] in _WS:
            end -= 1
        return end


def _apply(t, edits):
    """Apply ``(start, end, replacement)`` edits (non-overlapping) to ``t``. A replaced span's
    comments are kept after the replacement and its newlines after them, so lines never move."""
    edits = sorted(set(edits))
    out, pos = [], 0
    for start, end, new in edits:
        if start < pos:
            continue  # two rules chose the same span: the first one wins
        out.append(t.text[pos:start])
        kept = [t.text[a:b] for a, b in t.comments if a >= start and b <= end]
        newlines = max(0, t.text.count("\n", start, end) - sum(k.count("\n") for k in kept) - new.count("\n"))
        indent = re.search(r"\n([ \t]*)$", t.text[start:end]) if newlines else None
        out.append(new + "".join(" " + k for k in kept) + "\n" * newlines + (indent.group(1) if indent else ""))
        pos = end
    out.append(t.text[pos:])
    return "".join(out)


class _State:
    """What the passes learn about the file and the warnings they collect."""

    def __init__(self):
        self.warnings = []
        self.full_masks = {"RA_FULL_WARP_MASK"}
        self.warp_size_names = {"RA_WARP_SIZE", "warpSize"}
        self.defined = set()
        self.fp16 = self.bf16 = False

    def warn(self, line, rule, reason):
        self.warnings.append(HipifyWarning(line, reason, rule))
