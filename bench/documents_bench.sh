#!/usr/bin/env bash
# Text extraction of a large DOCX and a large XLSX (written here with Python's zipfile)
# against a reference converter from Debian in the same loop (pandoc 2.17 for DOCX, xlsx2csv
# for XLSX; `apt-get install pandoc xlsx2csv`); prints seconds per file for both, their ratio
# and the word F1 of ingestd's text against the reference's. `ingestd process` includes starting
# its sandboxed helper.
#   bench/documents_bench.sh [RUNS] [BUILD_DIR]
set -euo pipefail
runs=${1:-5}
build=${2:-$(cd "$(dirname "$0")/.." && pwd)/build}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
python3 - "$work" <<'PY'
import sys, zipfile
d = sys.argv[1]
W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
paras = "".join(f'<w:p><w:r><w:t>Paragraph {i} of the report, with some words to read.</w:t></w:r></w:p>'
                for i in range(20000))
rows = "".join(f'<w:tr><w:tc><w:p><w:r><w:t>r{i}</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>{i * 3}</w:t></w:r></w:p>'
               f'</w:tc></w:tr>' for i in range(5000))
ct = ('<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
      '<Default Extension="xml" ContentType="application/xml"/><Override PartName="/{}" '
      'ContentType="application/vnd.openxmlformats-officedocument.{}+xml"/>{}</Types>')
rels = ('<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '{}</Relationships>')
rel = '<Relationship Id="{}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/{}" Target="{}"/>'
with zipfile.ZipFile(d + "/big.docx", "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("[Content_Types].xml", ct.format("word/document.xml", "wordprocessingml.document.main", ""))
    z.writestr("_rels/.rels", rels.format(rel.format("rId1", "officeDocument", "word/document.xml")))
    z.writestr("word/document.xml", f'<w:document {W}><w:body>{paras}<w:tbl>{rows}</w:tbl></w:body></w:document>')
S = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
R = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'
strings = "".join(f"<si><t>name {i}</t></si>" for i in range(1000))
sheet = "".join(f'<row r="{i}"><c r="A{i}" t="s"><v>{i % 1000}</v></c><c r="B{i}"><v>{i * 1.5}</v></c>'
                f'<c r="C{i}" t="inlineStr"><is><t>note {i}</t></is></c></row>' for i in range(1, 30001))
with zipfile.ZipFile(d + "/big.xlsx", "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("[Content_Types].xml", ct.format("xl/workbook.xml", "spreadsheetml.sheet.main",
               '<Override PartName="/xl/worksheets/sheet1.xml" '
               'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
               '<Override PartName="/xl/sharedStrings.xml" '
               'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>'))
    z.writestr("_rels/.rels", rels.format(rel.format("rId1", "officeDocument", "xl/workbook.xml")))
    z.writestr("xl/workbook.xml", f'<workbook {S} {R}><sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>')
    z.writestr("xl/_rels/workbook.xml.rels", rels.format(rel.format("rId1", "worksheet", "worksheets/sheet1.xml") +
                                                         rel.format("rId2", "sharedStrings", "sharedStrings.xml")))
    z.writestr("xl/sharedStrings.xml", f"<sst {S}>{strings}</sst>")
    z.writestr("xl/worksheets/sheet1.xml", f"<worksheet {S}><sheetData>{sheet}</sheetData></worksheet>")
PY
time_of() {  # time_of COMMAND...: mean seconds per run
  local t0 t1; t0=$(date +%s.%N)
  for _ in $(seq "$runs"); do "$@" >/dev/null 2>&1; done
  t1=$(date +%s.%N); echo "scale=3; ($t1 - $t0) / $runs" | bc
}
# Word F1 of ingestd's whole text (inline or spilled) against the reference's output.
similarity() {  # similarity OUT_JSON REF_TEXT
  python3 - "$1" "$2" "$work/out" <<'PY'
import collections, json, re, sys
r = json.load(open(sys.argv[1]))
text = r.get("extracted_text")
if text is None and r.get("extracted_text_key"):
    text = open(sys.argv[3] + "/" + r["extracted_text_key"], encoding="utf-8").read()
words = lambda t: collections.Counter(re.findall(r"\w+(?:[.,]\w+)*", t or ""))
a, b = words(text), words(open(sys.argv[2], encoding="utf-8").read())
common = sum((a & b).values())
print("%.3f" % (2 * common / (sum(a.values()) + sum(b.values())) if a or b else 1.0))
PY
}
reference() {  # reference FILE: the reference converter's command for FILE, or nothing
  case "$1" in
    *.docx) command -v pandoc >/dev/null && echo "pandoc -t plain --wrap=none $1" ;;
    *.xlsx) command -v xlsx2csv >/dev/null && echo "xlsx2csv -d tab -a $1" ;;
  esac
}
for f in big.docx big.xlsx; do
  ours=$(time_of "$build/ingestd" process --steps text --out "$work/out" "$work/$f")
  "$build/ingestd" process --steps text --out "$work/out" "$work/$f" >"$work/$f.json" 2>/dev/null
  ref_cmd=$(reference "$work/$f" || true)
  if [ -z "$ref_cmd" ]; then
    echo "$f: ingestd ${ours}s; no reference converter (apt-get install pandoc xlsx2csv)"
    continue
  fi
  ref=$(time_of $ref_cmd)
  $ref_cmd >"$work/$f.ref" 2>/dev/null
  echo "$f: ingestd ${ours}s, ${ref_cmd%% *} ${ref}s, time ratio ingestd/reference" \
       "$(echo "scale=3; $ours / $ref" | bc), word F1 vs reference $(similarity "$work/$f.json" "$work/$f.ref")"
done
