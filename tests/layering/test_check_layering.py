#!/usr/bin/python3
"""Tests of scripts/check-layering: the tree's sources are copied to a temporary folder, where the
check passes; then one forbidden include at a time is planted in the copy, and the check must fail
and name the file and line of each.
Run: /usr/bin/python3 tests/layering/test_check_layering.py
"""

import os
import shutil
import subprocess
import tempfile
import unittest
from importlib.machinery import SourceFileLoader
from importlib.util import module_from_spec, spec_from_loader

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "check-layering")


def check_layering_module():
    loader = SourceFileLoader("check_layering", SCRIPT)
    module = module_from_spec(spec_from_loader("check_layering", loader))
    loader.exec_module(module)
    return module


CHECK = check_layering_module()
LAYERS = sorted(CHECK.ALLOWED)  # the folders the check reads
EXCEPTIONS = CHECK.EXCEPTIONS  # the includes it still allows against its table
SOURCES = (".c", ".h", ".hpp", ".cc", ".cpp", ".cu", ".cuh", ".in")


def copy_sources(destination):
    """The C, C++ and CUDA files of every layer, in their folders (the rest is not read)."""

    def ignore(folder, names):
        return [n for n in names
                if not os.path.isdir(os.path.join(folder, n)) and not n.endswith(SOURCES)]

    for layer in LAYERS:
        shutil.copytree(os.path.join(ROOT, layer), os.path.join(destination, layer), ignore=ignore)


class CheckLayeringTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root = tempfile.mkdtemp(prefix="check-layering-")
        copy_sources(cls.root)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.root)

    def setUp(self):
        self.originals = {}  # what each test changed in the copy, put back after it

    def tearDown(self):
        for path, text in self.originals.items():
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        shutil.rmtree(os.path.join(self.root, "plugins"), ignore_errors=True)

    def edit(self, relative):
        """The lines of the copy's file RELATIVE, kept to be put back after the test."""
        path = os.path.join(self.root, relative)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        self.originals.setdefault(path, text)
        return path, text.splitlines(keepends=True)

    def run_check(self):
        return subprocess.run(["/usr/bin/python3", SCRIPT, "--root", self.root],
                              capture_output=True, text=True)

    def plant(self, relative, line, at=1):
        """Inserts LINE into the tree's file RELATIVE so that it becomes line AT; returns AT."""
        path, lines = self.edit(relative)
        lines.insert(at - 1, line + "\n")
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(lines)
        return at

    def assert_fails_at(self, relative, line, *words):
        result = self.run_check()
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        report = [r for r in result.stderr.splitlines() if r.startswith(f"{relative}:{line}:")]
        self.assertEqual(len(report), 1, result.stderr)
        for word in words:
            self.assertIn(word, report[0])

    def test_the_tree_passes(self):
        result = self.run_check()
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stderr, "")

    def test_engine_including_a_server_header_fails(self):
        line = self.plant("engine/voice.cpp", '#include "tts/serve/speech_service.h"', at=3)
        self.assert_fails_at("engine/voice.cpp", line, "tts/serve/speech_service.h", "serve/",
                             "engine/ may not use")

    def test_a_header_in_angle_brackets_counts_too(self):
        line = self.plant("engine/include/tts/engine/voice.h", "#include <tts/train/checkpoint.h>",
                          at=5)
        self.assert_fails_at("engine/include/tts/engine/voice.h", line, "train/")

    def test_a_relative_include_of_another_folder_fails(self):
        line = self.plant("engine/pipeline.cpp", '#include "../serve/api_key.h"', at=2)
        self.assert_fails_at("engine/pipeline.cpp", line, "../serve/api_key.h", "serve/")

    def test_the_frontend_including_maths_fails(self):
        line = self.plant("frontend/phonemes/espeak_phonemizer.cpp", '  #  include "tts/kernels/simd.h"', at=4)
        self.assert_fails_at("frontend/phonemes/espeak_phonemizer.cpp", line, "kernels/",
                             "nothing of the project")

    def test_the_audio_library_including_the_engine_fails(self):
        line = self.plant("audio/stream_encoder.cpp", '#include "tts/engine/voice.h"', at=2)
        self.assert_fails_at("audio/stream_encoder.cpp", line, "engine/")

    def test_a_trainer_including_an_engine_header_fails(self):
        line = self.plant("train/common/training_loop.cpp", '#include "tts/engine/pipeline.h"', at=2)
        self.assert_fails_at("train/common/training_loop.cpp", line, "engine/", "train/ may not use")

    def test_the_acoustic_model_uses_only_the_symbol_table_of_the_frontend(self):
        line = self.plant("acoustic/network.cpp", '#include "tts/frontend/sentence_splitter.h"', at=2)
        self.assert_fails_at("acoustic/network.cpp", line, "may use only",
                             "tts/frontend/symbol_table.h")

    def test_the_server_including_the_voice_creation_fails(self):
        line = self.plant("serve/http/http_server.cpp",
                          '#include "tts/voice_creation/create_voice.h"', at=2)
        self.assert_fails_at("serve/http/http_server.cpp", line, "voice_creation/")

    def test_a_header_of_no_layer_fails(self):
        line = self.plant("vocoder/sampler.cpp", '#include "tts/wavenet/sampler.h"', at=2)
        self.assert_fails_at("vocoder/sampler.cpp", line, "no layer")

    def test_a_new_folder_needs_a_row(self):
        os.makedirs(os.path.join(self.root, "plugins"))
        with open(os.path.join(self.root, "plugins", "plugin.cpp"), "w", encoding="utf-8") as f:
            f.write('#include "tts/engine/voice.h"\n')
        result = self.run_check()
        self.assertEqual(result.returncode, 1)
        self.assertIn("plugins/plugin.cpp: the folder plugins/ is not a layer", result.stderr)

    def test_an_exception_no_longer_needed_fails(self):
        if not EXCEPTIONS:
            self.skipTest("scripts/check-layering lists no exception")
        relative, header = sorted(EXCEPTIONS)[0]
        path, lines = self.edit(relative)
        kept = [line for line in lines if f'#include "{header}"' not in line]
        self.assertLess(len(kept), len(lines))
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(kept)
        result = self.run_check()
        self.assertEqual(result.returncode, 1)
        self.assertIn(f'{relative}: no longer includes "{header}"', result.stderr)

    def test_the_programs_may_use_every_library(self):
        self.plant("tools/cmd_serve.cpp", '#include "tts/voice_creation/create_voice.h"', at=2)
        self.plant("tests/engine_pipeline_test.cpp", '#include "../serve/api_key.h"', at=2)
        result = self.run_check()
        self.assertEqual(result.returncode, 0, result.stderr)


if __name__ == "__main__":
    unittest.main()
