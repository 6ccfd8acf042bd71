"""A deterministic generator of varied English sentences for synthetic pre-training speech.

No public-domain prose is installed on these machines (and /usr/share/dict is empty), so the text
is generated from templates and a hand-written vocabulary that belong to this project. The
sentences are grammatical but not always sensible; what matters for pre-training an acoustic model
is coverage of phones, stress patterns, sentence types (statements, questions, commands, lists),
and the numbers, times and dates a speech engine has to read.
"""

import random

NAMES = ["Anna", "Peter", "Maria", "James", "Olivia", "Thomas", "Sophie", "Daniel", "Grace",
         "Robert", "Emily", "Michael", "Laura", "Henry", "Alice", "George", "Helen", "Victor",
         "Isabel", "Walter", "Rachel", "Samuel", "Nora", "Arthur", "Julia", "Oscar", "Ruth"]
PLACES = ["the station", "the old library", "the market", "the harbour", "the office", "the garden",
          "the village", "the museum", "the river", "the bakery", "the airport", "the school",
          "the hospital", "the mountain", "the beach", "the kitchen", "the bridge", "the forest",
          "the north tower", "the city hall", "the valley", "the factory", "the island"]
ADJECTIVES = ["small", "bright", "quiet", "heavy", "yellow", "ancient", "careful", "strange",
              "gentle", "narrow", "famous", "curious", "wooden", "silver", "empty", "frozen",
              "cheerful", "enormous", "dusty", "modern", "tiny", "purple", "clever", "rough",
              "smooth", "broken", "distant", "thick", "warm", "bitter", "delicate", "loud"]
NOUNS = ["box", "letter", "window", "engine", "garden", "pencil", "bicycle", "violin", "blanket",
         "ladder", "mirror", "basket", "kettle", "camera", "picture", "compass", "umbrella",
         "machine", "puzzle", "journey", "message", "lantern", "feather", "bottle", "orchestra",
         "question", "schedule", "telephone", "village", "festival", "treasure", "harvest",
         "thunderstorm", "photograph", "ocean", "chimney", "whistle", "carpet", "vegetable"]
VERBS_PAST = ["found", "painted", "carried", "opened", "repaired", "noticed", "borrowed", "cleaned",
              "described", "measured", "delivered", "forgot", "wrapped", "followed", "watched",
              "discovered", "ordered", "recorded", "pushed", "lifted", "covered", "answered",
              "chose", "broke", "brought", "wrote", "threw", "caught", "built", "sold"]
VERBS_BASE = ["find", "paint", "carry", "open", "repair", "notice", "borrow", "clean", "describe",
              "measure", "deliver", "wrap", "follow", "watch", "order", "record", "push", "lift",
              "cover", "answer", "choose", "bring", "write", "catch", "build", "sell", "check"]
ADVERBS = ["slowly", "quickly", "quietly", "happily", "suddenly", "carefully", "rarely", "always",
           "never", "often", "eagerly", "gently", "proudly", "nearly", "easily", "barely"]
TIMES = ["yesterday", "this morning", "last week", "on Monday", "in the evening", "at midnight",
         "before dinner", "after the storm", "every Sunday", "in early spring", "two days ago",
         "last summer", "on Friday afternoon", "in the middle of the night", "at dawn"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
FEELINGS = ["surprised", "delighted", "worried", "tired", "confused", "relieved", "angry", "calm",
            "excited", "nervous", "grateful", "amazed"]


def _a(word):
    return ("an " if word[0] in "aeiou" else "a ") + word


def _np(r):
    kind = r.random()
    if kind < 0.4:
        return "the " + r.choice(ADJECTIVES) + " " + r.choice(NOUNS)
    if kind < 0.7:
        return _a(r.choice(ADJECTIVES) + " " + r.choice(NOUNS))
    if kind < 0.85:
        return r.choice(NAMES) + "'s " + r.choice(NOUNS)
    return "the " + r.choice(NOUNS) + " near " + r.choice(PLACES)


def _ordinal_suffix(n):
    if 10 <= n % 100 <= 20:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


TEMPLATES = [
    lambda r: "%s %s %s %s." % (r.choice(NAMES), r.choice(VERBS_PAST), _np(r), r.choice(TIMES)),
    lambda r: "%s %s %s %s at %s." % (r.choice(NAMES), r.choice(ADVERBS), r.choice(VERBS_PAST),
                                      _np(r), r.choice(PLACES)),
    lambda r: "Did %s %s %s before leaving %s?" % (r.choice(NAMES), r.choice(VERBS_BASE), _np(r),
                                                   r.choice(PLACES)),
    lambda r: "Why was %s so %s about %s?" % (r.choice(NAMES), r.choice(FEELINGS), _np(r)),
    lambda r: "Please %s %s and wait by %s." % (r.choice(VERBS_BASE), _np(r), r.choice(PLACES)),
    lambda r: "We counted %d %ss at %s." % (r.randint(2, 999), r.choice(NOUNS), r.choice(PLACES)),
    lambda r: "The meeting starts at %d:%02d on %s, %s %d%s." % (
        r.randint(1, 12), r.choice([0, 15, 30, 45, 5, 10, 20, 40, 50]), r.choice(WEEKDAYS),
        r.choice(MONTHS), *(lambda d: (d, _ordinal_suffix(d)))(r.randint(1, 28))),
    lambda r: "When %s %s, the %s %s looked %s." % (r.choice(NAMES).lower().capitalize(),
                                                  r.choice(["arrived", "laughed", "left", "sang"]),
                                                  r.choice(ADJECTIVES), r.choice(NOUNS),
                                                  r.choice(ADJECTIVES)),
    lambda r: "%s, %s and %s were all %s." % (_np(r).capitalize(), _np(r), _np(r), r.choice(FEELINGS)),
    lambda r: "It costs %d dollars and %d cents, which seems %s." % (
        r.randint(2, 250), r.randint(1, 99), r.choice(["fair", "expensive", "cheap", "odd"])),
    lambda r: "Press %d to %s %s, or press %d to return." % (
        r.randint(1, 9), r.choice(VERBS_BASE), _np(r), r.randint(0, 9)),
    lambda r: "Nobody expected %s to be %s %s." % (_np(r), r.choice(ADVERBS), r.choice(FEELINGS)),
    lambda r: "%s said that %s had %s %s." % (r.choice(NAMES), r.choice(NAMES),
                                             r.choice(VERBS_PAST), _np(r)),
    lambda r: "How many %ss can you %s in %d minutes?" % (r.choice(NOUNS), r.choice(VERBS_BASE),
                                                         r.randint(2, 60)),
    lambda r: "After %s, %s %s %s and went home." % (r.choice(TIMES), r.choice(NAMES),
                                                    r.choice(VERBS_PAST), _np(r)),
]


def generate(count, seed=1):
    """Return `count` distinct sentences, the same for the same seed."""
    r = random.Random(seed)
    out, seen = [], set()
    attempts = 0
    while len(out) < count:
        attempts += 1
        if attempts > count * 50:
            raise ValueError("cannot generate %d distinct sentences" % count)
        sentence = r.choice(TEMPLATES)(r)
        sentence = sentence[0].upper() + sentence[1:]
        if sentence not in seen:
            seen.add(sentence)
            out.append(sentence)
    return out
