"""Write ``pytest_structeval/schema/unicode_scripts.py`` and ``unicode_binary.py``: the
Unicode Script and Script_Extensions values of every code point, and the code points of each
of ECMA-262's binary properties, as node's ``RegExp`` (ECMA-262 with the ``u`` flag, ICU's
Unicode data) reads ``\\p{Script=...}``, ``\\p{Script_Extensions=...}`` and ``\\p{Emoji}``.

Python's ``unicodedata`` has neither, so the package ships them. Run with node on the PATH,
in the project's environment (it formats the modules with ruff):
``uv run python tools/make_unicode_tables.py``. The Unicode version is node's.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

#: ECMA-262's Script values (PropertyValueAliases.txt): the short name, the long name, and
#: any other alias. Unknown (Zzzz) is left out: it is every code point of no other script.
SCRIPTS = """
Adlm Adlam; Aghb Caucasian_Albanian; Ahom Ahom; Arab Arabic; Armi Imperial_Aramaic;
Armn Armenian; Avst Avestan; Bali Balinese; Bamu Bamum; Bass Bassa_Vah; Batk Batak;
Beng Bengali; Berf Beria_Erfe; Bhks Bhaiksuki; Bopo Bopomofo; Brah Brahmi; Brai Braille;
Bugi Buginese; Buhd Buhid; Cakm Chakma; Cans Canadian_Aboriginal; Cari Carian; Cham Cham;
Cher Cherokee; Chis Chisoi; Chrs Chorasmian; Copt Coptic Qaac; Cpmn Cypro_Minoan; Cprt Cypriot;
Cyrl Cyrillic; Deva Devanagari; Diak Dives_Akuru; Dogr Dogra; Dsrt Deseret; Dupl Duployan;
Egyp Egyptian_Hieroglyphs; Elba Elbasan; Elym Elymaic; Ethi Ethiopic; Gara Garay;
Geor Georgian; Glag Glagolitic; Gong Gunjala_Gondi; Gonm Masaram_Gondi; Goth Gothic;
Gran Grantha; Grek Greek; Gujr Gujarati; Gukh Gurung_Khema; Guru Gurmukhi; Hang Hangul;
Hani Han; Hano Hanunoo; Hatr Hatran; Hebr Hebrew; Hira Hiragana; Hluw Anatolian_Hieroglyphs;
Hmng Pahawh_Hmong; Hmnp Nyiakeng_Puachue_Hmong; Hung Old_Hungarian; Ital Old_Italic;
Java Javanese; Kali Kayah_Li; Kana Katakana; Kawi Kawi; Khar Kharoshthi; Khmr Khmer;
Khoj Khojki; Kits Khitan_Small_Script; Knda Kannada; Krai Kirat_Rai; Kthi Kaithi;
Lana Tai_Tham; Laoo Lao; Latn Latin; Lepc Lepcha; Limb Limbu; Lina Linear_A; Linb Linear_B;
Lisu Lisu; Lyci Lycian; Lydi Lydian; Mahj Mahajani; Maka Makasar; Mand Mandaic;
Mani Manichaean; Marc Marchen; Medf Medefaidrin; Mend Mende_Kikakui; Merc Meroitic_Cursive;
Mero Meroitic_Hieroglyphs; Mlym Malayalam; Modi Modi; Mong Mongolian; Mroo Mro;
Mtei Meetei_Mayek; Mult Multani; Mymr Myanmar; Nagm Nag_Mundari; Nand Nandinagari;
Narb Old_North_Arabian; Nbat Nabataean; Newa Newa; Nkoo Nko; Nshu Nushu; Ogam Ogham;
Olck Ol_Chiki; Onao Ol_Onal; Orkh Old_Turkic; Orya Oriya; Osge Osage; Osma Osmanya;
Ougr Old_Uyghur; Palm Palmyrene; Pauc Pau_Cin_Hau; Perm Old_Permic; Phag Phags_Pa;
Phli Inscriptional_Pahlavi; Phlp Psalter_Pahlavi; Phnx Phoenician; Plrd Miao;
Prti Inscriptional_Parthian; Rjng Rejang; Rohg Hanifi_Rohingya; Runr Runic; Samr Samaritan;
Sarb Old_South_Arabian; Saur Saurashtra; Sgnw SignWriting; Shaw Shavian; Shrd Sharada;
Sidd Siddham; Sidt Sidetic; Sind Khudawadi; Sinh Sinhala; Sogd Sogdian; Sogo Old_Sogdian;
Sora Sora_Sompeng; Soyo Soyombo; Sund Sundanese; Sunu Sunuwar; Sylo Syloti_Nagri;
Syrc Syriac; Tagb Tagbanwa; Takr Takri; Tale Tai_Le; Talu New_Tai_Lue; Taml Tamil;
Tang Tangut; Tavt Tai_Viet; Tayo Tai_Yo; Telu Telugu; Tfng Tifinagh; Tglg Tagalog;
Thaa Thaana; Thai Thai; Tibt Tibetan; Tirh Tirhuta; Tnsa Tangsa; Todr Todhri;
Tols Tolong_Siki; Toto Toto; Tutg Tulu_Tigalari; Ugar Ugaritic; Vaii Vai; Vith Vithkuqi;
Wara Warang_Citi; Wcho Wancho; Xpeo Old_Persian; Xsux Cuneiform; Yezi Yezidi; Yiii Yi;
Zanb Zanabazar_Square; Zinh Inherited Qaai; Zyyy Common
"""

#: ECMA-262's binary properties (its table of them, from PropertyAliases.txt): the long name,
#: then any short one. ``ASCII``, ``ASCII_Hex_Digit``, ``Any`` and ``Assigned`` are left
#: out: ``unicode_properties`` writes them out itself (``Assigned`` from ``unicodedata``, as
#: the general categories).
BINARY = """
Alphabetic Alpha; Bidi_Control Bidi_C; Bidi_Mirrored Bidi_M; Case_Ignorable CI; Cased;
Changes_When_Casefolded CWCF; Changes_When_Casemapped CWCM; Changes_When_Lowercased CWL;
Changes_When_NFKC_Casefolded CWKCF; Changes_When_Titlecased CWT; Changes_When_Uppercased CWU;
Dash; Default_Ignorable_Code_Point DI; Deprecated Dep; Diacritic Dia; Emoji;
Emoji_Component EComp; Emoji_Modifier EMod; Emoji_Modifier_Base EBase;
Emoji_Presentation EPres; Extended_Pictographic ExtPict; Extender Ext;
Grapheme_Base Gr_Base; Grapheme_Extend Gr_Ext; Hex_Digit Hex; IDS_Binary_Operator IDSB;
IDS_Trinary_Operator IDST; ID_Continue IDC; ID_Start IDS; Ideographic Ideo;
Join_Control Join_C; Logical_Order_Exception LOE; Lowercase Lower; Math;
Noncharacter_Code_Point NChar; Pattern_Syntax Pat_Syn; Pattern_White_Space Pat_WS;
Quotation_Mark QMark; Radical; Regional_Indicator RI; Sentence_Terminal STerm;
Soft_Dotted SD; Terminal_Punctuation Term; Unified_Ideograph UIdeo; Uppercase Upper;
Variation_Selector VS; White_Space space; XID_Continue XIDC; XID_Start XIDS
"""

NODE = r"""
const [names, binary] = JSON.parse(process.argv[1]);
function ranges(property) {
  let re;
  try { re = new RegExp(`^\\p{${property}}$`, "u"); } catch (e) { return null; }
  const out = [];
  let start = -1;
  for (let cp = 0; cp <= 0x110000; cp++) {
    const hit = cp < 0x110000 && re.test(String.fromCodePoint(cp));
    if (hit && start < 0) start = cp;
    if (!hit && start >= 0) { out.push([start, cp - 1]); start = -1; }
  }
  return out;
}
const out = {unicode: process.versions.unicode, sc: {}, scx: {}, unknown: ranges("Script=Unknown")};
for (const aliases of names) {
  const sc = aliases.map(name => JSON.stringify(ranges(`Script=${name}`)));
  if (sc[0] === "null") continue;  // not in this node's table yet
  if (new Set(sc).size !== 1) throw new Error(`aliases differ: ${aliases}`);
  out.sc[aliases[1]] = JSON.parse(sc[0]);
  out.scx[aliases[1]] = ranges(`Script_Extensions=${aliases[1]}`);
}
out.binary = {};
for (const aliases of binary) {
  const found = aliases.map(name => JSON.stringify(ranges(name)));
  if (found[0] === "null") throw new Error(`node does not know \\p{${aliases[0]}}`);
  if (new Set(found).size !== 1) throw new Error(`aliases differ: ${aliases}`);
  out.binary[aliases[0]] = JSON.parse(found[0]);
}
console.log(JSON.stringify(out));
"""

PACKAGE = Path(__file__).resolve().parents[1] / "pytest_structeval" / "schema"
TARGET = PACKAGE / "unicode_scripts.py"
BINARY_TARGET = PACKAGE / "unicode_binary.py"


def encode(ranges: list[list[int]]) -> str:
    """Ranges as base-36 numbers: the gap before each range, then its length less one."""
    numbers: list[str] = []
    position = 0
    for start, end in ranges:
        numbers += [_base36(start - position), _base36(end - start)]
        position = end + 1
    return " ".join(numbers)


def _base36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    text = ""
    while True:
        number, digit = divmod(number, 36)
        text = digits[digit] + text
        if not number:
            return text


def main() -> None:
    aliases = [entry.split() for entry in SCRIPTS.replace("\n", " ").split(";")]
    binary = [entry.split() for entry in BINARY.replace("\n", " ").split(";")]
    found = json.loads(
        subprocess.run(
            ["node", "-e", NODE, json.dumps([aliases, binary])],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    covered = sorted(r for ranges in found["sc"].values() for r in ranges)
    rest, position = [], 0
    for start, end in [*covered, [0x110000, 0x110000]]:
        if start > position:
            rest.append([position, start - 1])
        position = max(position, end + 1)
    if rest != found["unknown"]:
        sys.exit("Script=Unknown is not what the other scripts leave")
    lines = [
        '"""Unicode Script and Script_Extensions values (``\\\\p{Script=Latin}``,',
        f"``\\\\p{{scx=Hira}}``), from Unicode {found['unicode']} as node's ICU has them.",
        "Written by ``tools/make_unicode_tables.py``: do not edit.",
        "",
        "Each script: its aliases, then its ranges as base-36 numbers (the gap before a range,",
        "then its length less one), then its Script_Extensions ranges (empty: the same).",
        '"""',
        "",
        "from typing import Final",
        "",
        f"UNICODE_VERSION: Final = {found['unicode']!r}",
        "SCRIPTS: Final = {",
    ]
    for names in aliases:
        long_name = names[1]
        if long_name not in found["sc"]:
            continue
        sc = encode(found["sc"][long_name])
        scx = encode(found["scx"][long_name])
        lines.append(f"    {long_name!r}: (")
        lines.append(f"        {tuple(names)!r},")
        for text in (sc, "" if scx == sc else scx):
            lines.extend(_wrapped(text))
        lines.append("    ),")
    lines.append("}")
    TARGET.write_text("\n".join(lines) + "\n")
    lines = [
        '"""ECMA-262\'s binary Unicode properties (``\\\\p{Emoji}``, ``\\\\p{Alphabetic}``...),',
        f"from Unicode {found['unicode']} as node's ICU has them.",
        "Written by ``tools/make_unicode_tables.py``: do not edit.",
        "",
        "Each property: its aliases, then its ranges as base-36 numbers (the gap before a range,",
        "then its length less one).",
        '"""',
        "",
        "from typing import Final",
        "",
        f"UNICODE_VERSION: Final = {found['unicode']!r}",
        "BINARY: Final = {",
    ]
    for names in binary:
        lines.append(f"    {names[0]!r}: (")
        lines.append(f"        {tuple(names)!r},")
        lines.extend(_wrapped(encode(found["binary"][names[0]])))
        lines.append("    ),")
    lines.append("}")
    BINARY_TARGET.write_text("\n".join(lines) + "\n")
    for target in (TARGET, BINARY_TARGET):
        subprocess.run([sys.executable, "-m", "ruff", "format", "-q", str(target)], check=True)
    print(f"wrote {TARGET} (Unicode {found['unicode']}, {len(found['sc'])} scripts)")
    print(f"wrote {BINARY_TARGET} ({len(binary)} binary properties)")


def _wrapped(text: str) -> list[str]:
    """A string literal cut into lines of at most 100 characters (adjacent literals)."""
    if not text:
        return ['        "",']
    words, lines, line = text.split(" "), [], ""
    for word in words:
        if len(line) + len(word) + 1 > 86:
            lines.append(f'        "{line} "')
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(f'        "{line}",')
    return lines


if __name__ == "__main__":
    main()
