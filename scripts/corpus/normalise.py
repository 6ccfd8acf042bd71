"""English text normalisation for corpus transcripts: what a listener hears.

This is deliberately small. It covers what occurs in the Asterisk core prompts (and in simple
generated sentences): cardinal and decimal numbers, ordinals like "21st", clock times ("4:05"), the keypad symbols "#"
and "*", a few other symbols, dotted abbreviations ("A.M.", "H.323", "www.asterisk.org"),
all-capital acronyms (spelled out letter by letter unless listed as spoken words), and a handful
of misspellings in the Asterisk transcripts. The C++ frontend has its own, general normaliser;
this one only has to produce the words the speaker actually said, for training.
"""

import re

_ONES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
         "eighteen", "nineteen"]
_TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_SCALES = [(10**9, "billion"), (10**6, "million"), (10**3, "thousand")]

_ORDINAL_IRREGULAR = {"one": "first", "two": "second", "three": "third", "five": "fifth",
                      "eight": "eighth", "nine": "ninth", "twelve": "twelfth"}

# Acronyms the speaker says as a word rather than letter by letter. The evidence is the length of
# the speech in the recording (see docs/corpus.md): IAX and SIP last as long as one syllable.
# Everything else in capitals of two to five letters is spelled out.
SPOKEN_ACRONYMS = {"DAHDI": "Dahdi", "IAX": "eeks", "SIP": "sip"}

# Whole-token replacements, applied before anything else (case-sensitive keys).
SPECIAL_TOKENS = {
    "H.323": "H three twenty three",
    "A.M.": "A M",
    "P.M.": "P M",
    "3D": "three D",
    "exclaimation-point": "exclamation point",
}

# Misspellings in the Asterisk transcripts, corrected to the word that is spoken.
SPELLING = {
    "exclaimation": "exclamation",
    "umute": "unmute",
    "fourtieth": "fortieth",
    "thru": "through",
    "represenatives": "representatives",
    "witheld": "withheld",
    "un-indentified": "unidentified",
    "xray": "x-ray",
}

SYMBOLS = {
    "#": "pound",
    "*": "star",
    "%": "percent",
    "&": "and",
    "@": "at",
    "+": "plus",
    "=": "equals",
}

LETTER_NAMES = {c: c.upper() for c in "abcdefghijklmnopqrstuvwxyz"}


def cardinal(n):
    """0 <= n < 10**12 as English words, without "and" (American style): 115 -> one hundred fifteen."""
    if n < 0:
        return "minus " + cardinal(-n)
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + ("" if n % 10 == 0 else " " + _ONES[n % 10])
    if n < 1000:
        rest = n % 100
        return _ONES[n // 100] + " hundred" + ("" if rest == 0 else " " + cardinal(rest))
    for value, name in _SCALES:
        if n >= value:
            rest = n % value
            return cardinal(n // value) + " " + name + ("" if rest == 0 else " " + cardinal(rest))
    raise ValueError(n)


def ordinal(n):
    words = cardinal(n).split(" ")
    last = words[-1]
    if last in _ORDINAL_IRREGULAR:
        last = _ORDINAL_IRREGULAR[last]
    elif last.endswith("y"):
        last = last[:-1] + "ieth"
    else:
        last = last + "th"
    return " ".join(words[:-1] + [last])


def digits(s):
    return " ".join(_ONES[int(c)] for c in s)


def number(s):
    """A run of digits, possibly with thousands commas or one decimal point."""
    if "." in s:
        whole, frac = s.split(".", 1)
        return (number(whole) if whole else "zero") + " point " + digits(frac)
    plain = s.replace(",", "")
    # Four or more digits without grouping commas are extensions, PINs and phone numbers in
    # these prompts: read digit by digit. Grouped numbers (12,000) are cardinals.
    if "," not in s and len(plain) >= 4:
        return digits(plain)
    return cardinal(int(plain))


_TOKEN = re.compile(r"\S+")
_NUMBER = re.compile(r"^(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?$")
_ORDINAL = re.compile(r"^(\d+)(st|nd|rd|th)$", re.IGNORECASE)
_CLOCK = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")
_MONEY = re.compile(r"^\$(\d[\d,]*(?:\.\d+)?)$")
_DOTTED = re.compile(r"^[A-Za-z0-9]+(?:\.[A-Za-z0-9]+)+$")
_ACRONYM = re.compile(r"^[A-Z]{2,5}$")
_LEAD = re.compile(r"^([\"'(\[]*)(.*?)([\"')\].,;:!?]*)$")


def _word(core):
    """Normalise one token stripped of surrounding punctuation."""
    if core in SPECIAL_TOKENS:
        return SPECIAL_TOKENS[core]
    if core in SYMBOLS:
        return SYMBOLS[core]
    lower = core.lower()
    if lower in SPELLING:
        return SPELLING[lower] if core.islower() else SPELLING[lower].capitalize()
    m = _MONEY.match(core)
    if m:
        amount = m.group(1)
        return number(amount) + (" dollar" if amount == "1" else " dollars")
    if _NUMBER.match(core):
        return number(core)
    m = _CLOCK.match(core)
    if m:
        hours, minutes = int(m.group(1)), int(m.group(2))
        if minutes == 0:
            return cardinal(hours) + " o'clock"
        return cardinal(hours) + (" oh " if minutes < 10 else " ") + cardinal(minutes)
    m = _ORDINAL.match(core)
    if m:
        return ordinal(int(m.group(1)))
    if core.endswith("%") and _NUMBER.match(core[:-1]):
        return number(core[:-1]) + " percent"
    if core in SPOKEN_ACRONYMS:
        return SPOKEN_ACRONYMS[core]
    if _ACRONYM.match(core):
        return " ".join(core)
    if _DOTTED.match(core) and not re.match(r"^\d", core):
        # www.asterisk.org -> w w w dot asterisk dot org
        parts = core.split(".")
        return " dot ".join(" ".join(p) if p.lower() == "www" else _word(p) for p in parts)
    # Mixed tokens such as "7-key" or "co-op": normalise each hyphen-separated part.
    if "-" in core and any(c.isdigit() for c in core):
        return " ".join(_word(p) for p in core.split("-") if p)
    if re.match(r"^\d+[A-Za-z]+$", core):  # e.g. 3D handled above; 28k -> twenty eight k
        m2 = re.match(r"^(\d+)([A-Za-z]+)$", core)
        return number(m2.group(1)) + " " + " ".join(m2.group(2).upper())
    if "-" in core:
        parts = core.split("-")
        if any(p.lower() in SPELLING for p in parts):
            return "-".join(_word(p) for p in parts)
    return core


def normalise(text):
    """Return the spoken form of a cleaned transcript (single spaces, punctuation kept)."""
    out = []
    for token in _TOKEN.findall(text):
        if token in SPECIAL_TOKENS or token in SYMBOLS:
            out.append(_word(token))
            continue
        lead, core, trail = _LEAD.match(token).groups()
        # Keep a final period that belongs to a dotted abbreviation ("A.M.") inside the core.
        if trail.startswith(".") and (core + ".") in SPECIAL_TOKENS:
            core, trail = core + ".", trail[1:]
        if not core:
            out.append(token)
            continue
        out.append(lead + _word(core) + trail)
    result = " ".join(out)
    result = re.sub(r"\s+", " ", result).strip()
    return result
