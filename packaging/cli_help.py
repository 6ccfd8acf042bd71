"""The tts command's tree of subcommands and options, read from its own --help (CLI11's format).

Used by make-man-pages and make-bash-completion, so that both describe the command that was built.
"""

import re
import subprocess
from dataclasses import dataclass, field

# An option line: two spaces, the names ("-o,--output"), then after one space its type and default
# if it takes a value, then two or more spaces and the description (or that on the next line).
_OPTION = re.compile(r"^  (-[^\s]+)(?: (\S.*?))?(?:\s{2,}\S.*)?$")
# A subcommand line: two spaces, the name, two or more spaces, the description.
_SUBCOMMAND = re.compile(r"^  ([a-z][a-z0-9-]*)(?:\s{2,}(\S.*))?$")


@dataclass
class Option:
    names: list  # ["-o", "--output"]
    takes_value: bool
    choices: list  # the values of a TEXT:{a,b} option, else empty


@dataclass
class Command:
    path: list  # ["tts", "train", "vocoder"]
    description: str
    help_text: str
    options: list = field(default_factory=list)
    subcommands: list = field(default_factory=list)  # Command, in the help's order


def _sections(help_text):
    """Maps each "Title:" section of the help to its lines."""
    sections, current = {}, None
    for line in help_text.splitlines():
        if re.match(r"^[A-Z][A-Za-z ]*:$", line):
            current = line[:-1]
            sections[current] = []
        elif current is not None:
            if line and not line.startswith(" "):
                current = None  # free text after the sections (exit codes, notes)
            else:
                sections[current].append(line)
    return sections


def _parse_option(line):
    match = _OPTION.match(line)
    if not match:
        return None
    names = [n for n in match.group(1).split(",") if n.startswith("-")]
    kind = match.group(2) or ""
    choices = []
    braces = re.search(r"\{([^}]*)\}", kind)
    if braces:
        choices = [c.strip() for c in braces.group(1).split(",") if c.strip()]
    # A flag has no type; "TEXT", "INT:...", "FLOAT=1" and the like take a value.
    takes_value = bool(kind) and not kind.startswith("Excludes") and not kind.startswith("Needs")
    return Option(names=names, takes_value=takes_value, choices=choices)


def read_command(tts, path=None):
    """Runs `tts [path...] --help` and, recursively, each subcommand's."""
    path = path or ["tts"]
    result = subprocess.run([tts, *path[1:], "--help"], capture_output=True, text=True, check=True)
    help_text = result.stdout
    description = help_text.splitlines()[0].strip() if help_text else ""
    command = Command(path=path, description=description, help_text=help_text)
    sections = _sections(help_text)
    for line in sections.get("Options", []):
        option = _parse_option(line)
        if option:
            command.options.append(option)
    for line in sections.get("Subcommands", []):
        match = _SUBCOMMAND.match(line)
        if match:
            command.subcommands.append(read_command(tts, path + [match.group(1)]))
    return command


def walk(command):
    """The command and every subcommand below it, depth first."""
    yield command
    for sub in command.subcommands:
        yield from walk(sub)
