#!/usr/bin/python3
"""Writes the hostile-input corpus of tests/data/bad/ and EXPECTED.tsv.

    python3 tests/data/bad/make_corpus.py

Each entry is a file, how the CLI reads it ("log"; "compare": a log that
reads fine and that the comparison refuses; "manifest": beside the good
log ok_plain.csv), the exit status and the start of stderr that
`benchsite compare FILE --baseline main --candidate pr --json OUT` must
give (tests/test_bad_inputs.c checks them, and that OUT never appears on
exit 2). Names starting with "@" are too big for git: test_bad_inputs.c
generates them (see README.md). Rerun this after changing an entry and
commit the files it writes.
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
HDR = b"benchmark,dataset,scale,impl,run,block,phase,iterations,per_call_us\n"


def rows(n=6, value=b"2.5", eol=b"\n"):
    """A clean pair of impls over n blocks, equal times: exit 0."""
    out = b""
    for j in range(n):
        for impl in (b"main", b"pr"):
            out += b"sort,n=8,8,%s,0,%d,confirm,100,%s%s" % (impl, j, value, eol)
    return out


GOOD = HDR + rows()


def row(**kw):
    """One data row of HDR with fields overridden."""
    f = dict(benchmark=b"sort", dataset=b"n=8", scale=b"8", impl=b"main",
             run=b"0", block=b"0", phase=b"confirm", iterations=b"100",
             per_call_us=b"2.5")
    f.update(kw)
    return b",".join(f[k] for k in ("benchmark", "dataset", "scale", "impl",
                                    "run", "block", "phase", "iterations",
                                    "per_call_us")) + b"\n"


def bad_row(**kw):
    """The good log with one bad row appended: it is on line 14."""
    return GOOD + row(**kw)


MGOOD = (b"key,value\ntarget,native\nprofile,release\ndtype,f64\n"
         b"machine,ci-1\nfrequency_policy,performance\nprotocol,Development\n")

L14 = "benchsite: {f}:14: "

# A benchmark name holding a line break, a CR, "##[" and an escape
# sequence: what would start workflow commands in a CI log if printed raw.
CI_NAME = b"\"x\n::error::pwned\r##[add-mask]\x1b[31m\""

# (file, kind, content or None for generated, exit, stderr prefix, note)
ENTRIES = [
    # ---- accepted ----
    ("ok_plain.csv", "log", GOOD, 0, "", "the reference good log"),
    ("ok_bom.csv", "log", b"\xef\xbb\xbf" + GOOD, 0, "",
     "a UTF-8 BOM at the very start is skipped"),
    ("ok_crlf.csv", "log", HDR.replace(b"\n", b"\r\n") + rows(eol=b"\r\n"),
     0, "", "CRLF line endings"),
    ("ok_cr.csv", "log", HDR.replace(b"\n", b"\r") + rows(eol=b"\r"), 0, "",
     "old Mac CR line endings"),
    ("ok_mixed_eol.csv", "log",
     HDR + b"".join(r + e for r, e in zip(rows().split(b"\n")[:-1],
                                          [b"\n", b"\r\n", b"\r"] * 4)),
     0, "", "LF, CRLF and CR mixed in one file"),
    ("ok_no_final_newline.csv", "log", GOOD.rstrip(b"\n"), 0, "",
     "the last record has no line ending"),
    ("ok_blank_lines.csv", "log", b"\n\r\n" + HDR + b"\n\n" + rows() + b"\n\n",
     0, "", "blank lines are skipped, before the header too"),
    ("ok_quoted.csv", "log",
     HDR + rows().replace(b"sort,n=8", b"\"sort\",\"n=8\""), 0, "",
     "quoted fields"),
    ("ok_unknown_columns.csv", "log",
     b"host,benchmark,impl,block,per_call_us,note\n" +
     b"".join(b"h1,sort,%s,%d,2.5,\"a, b\"\"c\"\"\nd\"\n" % (i, j)
              for j in range(6) for i in (b"main", b"pr")), 0, "",
     "columns in any order, unknown columns ignored, a quoted multi-line "
     "field"),
    ("ok_unicode_names.csv", "log",
     GOOD.replace(b"sort,n=8", "tri\u00e9,\u2211 n=8 \U0001F680".encode()),
     0, "", "valid UTF-8 names"),
    ("ok_hostile_names.csv", "log",
     GOOD.replace(b"sort,n=8", b"\"`touch /tmp/bs_canary`; $(id) <b>&amp;\","
                  b"\"=cmd|' /C calc'!A0\""), 0, "",
     "shell, HTML and spreadsheet metacharacters are plain text"),
    ("ok_numbers.csv", "log",
     HDR + b"".join(row(impl=i, block=b"%d" % j, per_call_us=v)
                    for j, v in enumerate([b"2.5", b"+2.5", b"25e-1", b".25E1",
                                           b"2.50000000000000000000001",
                                           b"0.0000025e6"])
                    for i in (b"main", b"pr")), 0, "",
     "decimal spellings of the same number (strtod's grammar)"),
    # ---- empty and truncated ----
    ("empty.csv", "log", b"", 2,
     "benchsite: empty.csv: empty file: no header row", ""),
    ("blank_lines_only.csv", "log", b"\n\r\n\n", 2,
     "benchsite: blank_lines_only.csv: empty file: no header row", ""),
    ("bom_only.csv", "log", b"\xef\xbb\xbf", 2,
     "benchsite: bom_only.csv: empty file: no header row", ""),
    ("header_only.csv", "compare", HDR, 2,
     "benchsite: header_only.csv: no observation rows (only a header)",
     "a valid but empty log: the message names it"),
    ("truncated_quote.csv", "log", GOOD + b"sort,\"n=8,8,main,0,6,confirm,1", 2,
     "benchsite: truncated_quote.csv:14: malformed CSV: quoted field not "
     "closed at end of file", ""),
    ("truncated_mid_row.csv", "log", GOOD + b"sort,n=8,8,ma", 2,
     "benchsite: truncated_mid_row.csv:14: expected 9 fields, found 4", ""),
    ("quote_in_unquoted.csv", "log", bad_row(impl=b"ma\"in"), 2,
     "benchsite: quote_in_unquoted.csv:14: malformed CSV: quote inside an "
     "unquoted field (byte 14 of the line)", ""),
    ("text_after_quote.csv", "log", bad_row(impl=b"\"main\"x"), 2,
     "benchsite: text_after_quote.csv:14: malformed CSV: text after a closing "
     "quote (byte 18 of the line)", ""),
    ("space_after_quote.csv", "log", bad_row(impl=b"\"main\" "), 2,
     "benchsite: space_after_quote.csv:14: malformed CSV: text after a "
     "closing quote", "RFC 4180: nothing between a closing quote and ','"),
    # ---- bytes ----
    ("nul_in_field.csv", "log", bad_row(impl=b"ma\0in"), 2,
     "benchsite: nul_in_field.csv:14: column impl: contains a NUL byte", ""),
    ("nul_in_header.csv", "log", HDR.replace(b"impl", b"im\0pl") + rows(), 2,
     "benchsite: nul_in_header.csv:1: header field 4: contains a NUL byte",
     ""),
    ("nul_only.csv", "log", b"\0" * 64, 2,
     "benchsite: nul_only.csv:1: header field 1: contains a NUL byte", ""),
    ("invalid_utf8.csv", "log", bad_row(benchmark=b"sort\xff"), 2,
     "benchsite: invalid_utf8.csv:14: column benchmark: invalid UTF-8 at "
     "byte 5 of the field", ""),
    ("latin1.csv", "log", bad_row(dataset=b"caf\xe9"), 2,
     "benchsite: latin1.csv:14: column dataset: invalid UTF-8 at byte 4 of "
     "the field", "Latin-1 is not UTF-8"),
    ("overlong_utf8.csv", "log", bad_row(benchmark=b"\xc0\xaf"), 2,
     "benchsite: overlong_utf8.csv:14: column benchmark: invalid UTF-8 at "
     "byte 1 of the field", "overlong '/'"),
    ("surrogate_utf8.csv", "log", bad_row(impl=b"x\xed\xa0\x80"), 2,
     "benchsite: surrogate_utf8.csv:14: column impl: invalid UTF-8 at byte 2 "
     "of the field", "UTF-16 surrogate"),
    ("truncated_utf8.csv", "log", bad_row(impl=b"main\xe2\x82"), 2,
     "benchsite: truncated_utf8.csv:14: column impl: invalid UTF-8 at byte 5 "
     "of the field", "a sequence cut short"),
    ("beyond_unicode.csv", "log", bad_row(impl=b"\xf4\x90\x80\x80"), 2,
     "benchsite: beyond_unicode.csv:14: column impl: invalid UTF-8 at byte 1 "
     "of the field", "U+110000"),
    ("utf16le.csv", "log", b"\xff\xfe" + GOOD.decode().encode("utf-16-le"), 2,
     "benchsite: utf16le.csv:1: header field 1: contains a NUL byte",
     "UTF-16 is refused, not guessed"),
    ("bom_in_middle.csv", "log", GOOD + b"\xef\xbb\xbf" + GOOD, 2,
     "benchsite: bom_in_middle.csv:14: column scale: \"scale\" is not a "
     "positive number", "two logs concatenated: the second header is data"),
    ("invalid_utf8_unknown_column.csv", "log",
     b"benchmark,impl,block,per_call_us,note\nsort,main,0,1,\x80\n", 2,
     "benchsite: invalid_utf8_unknown_column.csv:2: column note: invalid "
     "UTF-8 at byte 1 of the field", "unknown columns are checked too"),
    # ---- numbers ----
    ("per_call_1e400.csv", "log", bad_row(per_call_us=b"1e400"), 2,
     L14.format(f="per_call_1e400.csv") + "column per_call_us: \"1e400\" is "
     "not a positive number (out of range for a double)", ""),
    ("per_call_1e-400.csv", "log", bad_row(per_call_us=b"1e-400"), 2,
     L14.format(f="per_call_1e-400.csv") + "column per_call_us: \"1e-400\" "
     "is not a positive number (rounds to zero)", ""),
    ("per_call_nan.csv", "log", bad_row(per_call_us=b"nan"), 2,
     L14.format(f="per_call_nan.csv") + "column per_call_us: \"nan\" is not "
     "a positive number (nan and infinity are not allowed)", ""),
    ("per_call_NaN.csv", "log", bad_row(per_call_us=b"-NaN"), 2,
     L14.format(f="per_call_NaN.csv") + "column per_call_us: \"-NaN\" is not "
     "a positive number (nan and infinity are not allowed)", ""),
    ("per_call_inf.csv", "log", bad_row(per_call_us=b"Infinity"), 2,
     L14.format(f="per_call_inf.csv") + "column per_call_us: \"Infinity\" is "
     "not a positive number (nan and infinity are not allowed)", ""),
    ("per_call_hex.csv", "log", bad_row(per_call_us=b"0x1p-3"), 2,
     L14.format(f="per_call_hex.csv") + "column per_call_us: \"0x1p-3\" is "
     "not a positive number (hexadecimal is not allowed)", ""),
    ("per_call_neg_zero.csv", "log", bad_row(per_call_us=b"-0"), 2,
     L14.format(f="per_call_neg_zero.csv") + "column per_call_us: \"-0\" is "
     "not a positive number", ""),
    ("per_call_zero.csv", "log", bad_row(per_call_us=b"0.0e5"), 2,
     L14.format(f="per_call_zero.csv") + "column per_call_us: \"0.0e5\" is "
     "not a positive number", ""),
    ("per_call_negative.csv", "log", bad_row(per_call_us=b"-3"), 2,
     L14.format(f="per_call_negative.csv") + "column per_call_us: \"-3\" is "
     "not a positive number", "the SPEC's own example"),
    ("per_call_blank.csv", "log", bad_row(per_call_us=b" 2.5"), 2,
     L14.format(f="per_call_blank.csv") + "column per_call_us: \" 2.5\" is "
     "not a positive number", "blanks are not trimmed (RFC 4180)"),
    ("per_call_decimal_comma.csv", "log", bad_row(per_call_us=b"\"2,5\""), 2,
     L14.format(f="per_call_decimal_comma.csv") + "column per_call_us: "
     "\"2,5\" is not a positive number", ""),
    ("per_call_unit.csv", "log", bad_row(per_call_us=b"2.5us"), 2,
     L14.format(f="per_call_unit.csv") + "column per_call_us: \"2.5us\" is "
     "not a positive number", ""),
    ("per_call_empty.csv", "log", bad_row(per_call_us=b""), 2,
     L14.format(f="per_call_empty.csv") + "column per_call_us: must not be "
     "empty", ""),
    ("scale_nan.csv", "log", bad_row(scale=b"nan"), 2,
     L14.format(f="scale_nan.csv") + "column scale: \"nan\" is not a "
     "positive number (nan and infinity are not allowed)", ""),
    ("block_huge.csv", "log", bad_row(block=b"9223372036854775808"), 2,
     L14.format(f="block_huge.csv") + "column block: \"9223372036854775808\" "
     "is too large", "2^63"),
    ("block_huger.csv", "log", bad_row(block=b"1" + b"0" * 40), 2,
     L14.format(f="block_huger.csv") + "column block: "
     "\"1000000000000000000000000000000000000000...\" is too large",
     "quoted values are cut at 40 bytes"),
    ("block_negative.csv", "log", bad_row(block=b"-1"), 2,
     L14.format(f="block_negative.csv") + "column block: \"-1\" is not a "
     "non-negative integer", ""),
    ("block_float.csv", "log", bad_row(block=b"1.0"), 2,
     L14.format(f="block_float.csv") + "column block: \"1.0\" is not a "
     "non-negative integer", ""),
    ("block_hex.csv", "log", bad_row(block=b"0x10"), 2,
     L14.format(f="block_hex.csv") + "column block: \"0x10\" is not a "
     "non-negative integer", ""),
    ("run_huge.csv", "log", bad_row(run=b"18446744073709551616"), 2,
     L14.format(f="run_huge.csv") + "column run: \"18446744073709551616\" is "
     "too large", "2^64"),
    ("iterations_zero.csv", "log", bad_row(iterations=b"0"), 2,
     L14.format(f="iterations_zero.csv") + "column iterations: \"0\" is not "
     "a positive integer", ""),
    # ---- structure ----
    ("phase_unknown.csv", "log", bad_row(phase=b"warmup"), 2,
     L14.format(f="phase_unknown.csv") + "column phase: \"warmup\" is not "
     "calibration or confirm", ""),
    ("duplicate_header.csv", "log", HDR.rstrip(b"\n") + b",impl\n", 2,
     "benchsite: duplicate_header.csv:1: column impl: appears twice in the "
     "header", ""),
    ("duplicate_empty_header.csv", "log",
     b"benchmark,,impl,,block,per_call_us\n", 2,
     "benchsite: duplicate_empty_header.csv:1: column \"\": appears twice in "
     "the header", ""),
    ("missing_required_column.csv", "log",
     b"benchmark,impl,block,time_us\nsort,main,0,1\n", 2,
     "benchsite: missing_required_column.csv:1: missing required column "
     "\"per_call_us\"", ""),
    ("header_wrong_case.csv", "log",
     b"Benchmark,Impl,Block,Per_Call_Us\nsort,main,0,1\n", 2,
     "benchsite: header_wrong_case.csv:1: missing required column "
     "\"benchmark\"", "names are case-sensitive"),
    ("short_row.csv", "log", GOOD + b"sort,n=8,8,main,0,6,confirm\n", 2,
     "benchsite: short_row.csv:14: expected 9 fields, found 7", ""),
    ("long_row.csv", "log", GOOD + row().rstrip(b"\n") + b",x,y\n", 2,
     "benchsite: long_row.csv:14: expected 9 fields, found 11", ""),
    ("empty_benchmark.csv", "log", bad_row(benchmark=b""), 2,
     L14.format(f="empty_benchmark.csv") + "column benchmark: must not be "
     "empty", ""),
    ("empty_impl.csv", "log", bad_row(impl=b"\"\""), 2,
     L14.format(f="empty_impl.csv") + "column impl: must not be empty", ""),
    ("confirm_without_block.csv", "log", bad_row(block=b""), 2,
     L14.format(f="confirm_without_block.csv") + "column block: missing for "
     "a confirm row", ""),
    ("duplicate_confirm_row.csv", "log", bad_row(block=b"3"), 2,
     L14.format(f="duplicate_confirm_row.csv") + "duplicate confirm row for "
     "benchmark \"sort\", dataset \"n=8\", run 0, block 3, impl \"main\" "
     "(first at duplicate_confirm_row.csv:8)", ""),
    ("scale_conflict.csv", "log", bad_row(scale=b"16", block=b"6"), 2,
     L14.format(f="scale_conflict.csv") + "column scale: \"16\" differs from "
     "8 at scale_conflict.csv:2 (same benchmark and dataset)", ""),
    ("mismatched_pairs.csv", "compare", bad_row(block=b"6"), 2,
     "benchsite: mismatched_pairs.csv:14: mismatched pairs in case sort "
     "[n=8]: 1 row without a partner: main run 0 block 6 "
     "(mismatched_pairs.csv:14)", "never truncated"),
    # A name that tries to start GitHub Actions workflow commands in the CI
    # log: its newline, CR, ESC and the "##[" are escaped as \\xNN, so the
    # message stays one line and no line starts with "::".
    ("ci_command_name.csv", "compare",
     HDR + rows().replace(b"sort,", CI_NAME + b",") +
     row(benchmark=CI_NAME, block=b"6"), 2,
     "benchsite: ci_command_name.csv:38: mismatched pairs in case "
     "x\\x0a::error::pwned\\x0d\\x23#[add-mask]\\x1b[31m [n=8]: 1 row "
     "without a partner", "hostile name in the mismatched-pairs error"),
    ("only_baseline.csv", "compare", HDR + rows().replace(b",pr,", b",main2,"), 2,
     "benchsite: no case has confirm rows of both \"main\" and \"pr\"", ""),
    # ---- limits (generated: see README.md) ----
    ("@field_1mb.csv", "log", None, 2,
     "benchsite: @field_1mb.csv:2: field longer than 4096 bytes",
     "a 1 MB quoted benchmark name"),
    ("@columns_100k.csv", "log", None, 2,
     "benchsite: @columns_100k.csv:1: more than 256 columns",
     "a header of 100 000 columns"),
    ("@case_rows_over.csv", "log", None, 2,
     "benchsite: @case_rows_over.csv:100002: more than 100000 rows for "
     "benchmark \"sort\", dataset \"n=8\"", "100 001 rows of one case"),
    # ---- manifests (read beside ok_plain.csv) ----
    ("m_ok_bom_crlf.csv", "manifest",
     b"\xef\xbb\xbf" + MGOOD.replace(b"\n", b"\r\n"), 0, "",
     "BOM and CRLF in a manifest"),
    ("m_empty.csv", "manifest", b"", 2,
     "benchsite: m_empty.csv:1: header must be \"key,value\"", ""),
    ("m_bad_header.csv", "manifest", b"name,value\ntarget,native\n", 2,
     "benchsite: m_bad_header.csv:1: header must be \"key,value\"", ""),
    ("m_three_fields.csv", "manifest", MGOOD + b"a,b,c\n", 2,
     "benchsite: m_three_fields.csv:8: expected 2 fields, found 3", ""),
    ("m_dup_key.csv", "manifest", MGOOD + b"target,wasm32\n", 2,
     "benchsite: m_dup_key.csv:8: duplicate key \"target\" (first at line 2)",
     ""),
    ("m_empty_key.csv", "manifest", MGOOD + b",x\n", 2,
     "benchsite: m_empty_key.csv:8: column key: must not be empty", ""),
    ("m_truncated_quote.csv", "manifest", MGOOD + b"note,\"abc\n", 2,
     "benchsite: m_truncated_quote.csv:8: malformed CSV: quoted field not "
     "closed at end of file", ""),
    ("m_nul.csv", "manifest", MGOOD + b"no\0te,x\n", 2,
     "benchsite: m_nul.csv:8: column key: contains a NUL byte", ""),
    ("m_invalid_utf8.csv", "manifest", MGOOD + b"note,\xc3\x28\n", 2,
     "benchsite: m_invalid_utf8.csv:8: column value: invalid UTF-8 at byte 1 "
     "of the field", ""),
    ("m_target_wasm.csv", "manifest",
     MGOOD.replace(b"target,native", b"target,wasm32"), 2,
     "benchsite: m_target_wasm.csv: target is \"wasm32\", not native", ""),
    ("@m_keys_100k.csv", "manifest", None, 2,
     "benchsite: @m_keys_100k.csv:10002: more than 10000 entries",
     "a manifest with 10^5 keys"),
    ("@m_value_1mb.csv", "manifest", None, 2,
     "benchsite: @m_value_1mb.csv:2: field longer than 65536 bytes", ""),
    ("@m_17mb.csv", "manifest", None, 2,
     "benchsite: @m_17mb.csv: file is larger than the limit of 16777216 "
     "bytes", "17 MB of blank lines"),
]


def main():
    for name in os.listdir(HERE):
        if name.endswith(".csv"):
            os.remove(os.path.join(HERE, name))
    with open(os.path.join(HERE, "EXPECTED.tsv"), "w", encoding="utf-8") as t:
        t.write("# file\tkind\texit\tstderr prefix\t(note)  -- written by "
                "make_corpus.py\n")
        for name, kind, data, status, prefix, note in ENTRIES:
            assert "\t" not in prefix and "\n" not in prefix
            if data is not None:
                with open(os.path.join(HERE, name), "wb") as f:
                    f.write(data)
            t.write(f"{name}\t{kind}\t{status}\t{prefix}\t{note}\n")
    print(len(ENTRIES), "entries,",
          sum(1 for e in ENTRIES if e[2] is not None), "files")


if __name__ == "__main__":
    main()
