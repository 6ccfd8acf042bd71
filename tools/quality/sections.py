"""The report's sections after its header, one function each; each returns the section's lines."""

import os
import shlex
import statistics

from dev_sentences import is_harvard
from markdown_tables import md_escape, wer_table
from scoring import SPEECH_LEVEL_DBOV
from systems import FLITE_VOICES
from unseen_text import UNSEEN_SENTENCE_SEED


def dev_sentences_section(ctx, dev):
    seeds = ctx.seeds
    md = ["## Development sentences\n",
          f"`{ctx.rel(os.path.join(dev.eval_dir, 'dev-sentences.txt'))}`, "
          f"{len(dev.sentences)} of {dev.n_all} sentences, each spoken by every system "
          f"(references: `dev-references.txt`). Sentences 1–30 are Harvard sentences; 31–40 test "
          f"text normalisation (numbers, abbreviations, times, money).\n"]
    # WER columns for the two kinds of sentence, when both were scored
    subsets = []
    if any(is_harvard(k) for k in dev.keys) and not all(is_harvard(k) for k in dev.keys):
        subsets = [("1–30", is_harvard), ("31–40", lambda k: not is_harvard(k))]
    rows = [(label, list(dev.items[s].values())) for s, label, _ in dev.systems]
    if len(seeds) > 1:   # the pooled row right after the voice's per-seed rows
        rows.insert(len(seeds), (f"**{ctx.voice_label}, seeds 0–{seeds[-1]} pooled**",
                                 dev.pooled(ctx.tts_ids)))
    md.append(wer_table(rows, subsets, own_level=True))
    md.append("")
    md.append("The recogniser heard every file at an active speech level of "
              f"{SPEECH_LEVEL_DBOV:g} dBov (ITU-T P.56, the level listening tests use): its WER "
              "moves with the level, by more than the differences between systems, so at their "
              "own levels the systems would be compared on loudness as well as speech. The last "
              "two columns show each system's own level (median over its sentences) and the WER "
              "it gets heard at that level, for comparison with reports before this levelling; "
              "the targets use the levelled WER.\n")
    md.append("`tts say` ran with its defaults (temperature 1, rate 1) and `--seed` 0"
              + (f" to {seeds[-1]}: the vocoder samples, so each seed is another draw of the same "
                 f"sentences, and the pooled row is the voice's figure" if len(seeds) > 1 else "")
              + "; each system's audio lasted in total: " + ", ".join(
                  f"{label} {sum(i.seconds or 0 for i in dev.items[s].values()):.0f} s"
                  for s, label, _ in dev.systems) + ".\n")
    return md


def unseen_prose_section(ctx, unseen):
    """The same comparison on sentences none of the models was tuned or trained on."""
    if unseen is None:
        return []
    seeds = ctx.seeds
    md = ["## Unseen prose\n",
          f"{len(unseen.sentences)} plain sentences from Debian's fortunes (sentence seed "
          f"{UNSEEN_SENTENCE_SEED}, `tools/quality/unseen_text.py`): none is among the 8,000 "
          "fortunes sentences the voice's acoustic model was pre-trained on, nor a development "
          "sentence, and no setting of the voice was chosen on them. Each is its own reference. "
          "Ordinary prose gives the recogniser's language model more context than the Harvard "
          "sentences do, so a voice's sounds are tested less hard here; this set is larger and "
          "shows whether a difference on the 40 development sentences holds on other text. Heard "
          f"at {SPEECH_LEVEL_DBOV:g} dBov, like the development sentences; sentence by sentence "
          "in the appendix.\n"]
    rows = [(label, list(unseen.items[s].values())) for s, label, _ in unseen.systems]
    if len(seeds) > 1:
        rows.insert(len(seeds), (f"**{ctx.voice_label}, seeds 0–{seeds[-1]} pooled**",
                                 unseen.pooled(ctx.tts_ids)))
    md.append(wer_table(rows))
    md.append("")
    return md


def per_seed_rows(ctx, held_out, system_ids, label):
    """WER table rows: one per seed, then (with several seeds) all of them pooled."""
    seeds = ctx.seeds
    rows = [(f"{label}, seed {seed}", [held_out.items[i][p] for p in held_out.ids])
            for seed, i in zip(seeds, system_ids)]
    if len(seeds) > 1:
        rows.append((f"**{label}, seeds 0–{seeds[-1]} pooled**",
                     [held_out.items[i][p] for i in system_ids for p in held_out.ids]))
    return rows


def log_mel_distance_paragraph(ctx, held_out):
    copy_items = [held_out.items[c][p] for c in ctx.copy_ids for p in held_out.ids]
    dist = [i.extra["log_mel_distance"] for i in copy_items
            if not i.error and "log_mel_distance" in i.extra]
    floor = [i.extra["log_mel_distance_of_mulaw_input"] for i in copy_items
             if not i.error and "log_mel_distance_of_mulaw_input" in i.extra]
    if not dist:
        return "No copy-synthesis succeeded, so there is no log-mel distance.\n"
    return (f"Copy-synthesis log-mel distance (`tts vocode --report`: mean absolute difference "
            f"of natural-log mel magnitudes, over 80 mels and all frames, between recording and "
            f"re-synthesis), averaged over {len(dist)} renderings: "
            f"**{statistics.mean(dist):.3f}**; the codec floor (the recording merely quantised by "
            f"the vocoder's sample codec — pre-emphasis, if the vocoder uses it, and μ-law — what "
            f"any vocoder with that codec could reach): {statistics.mean(floor):.3f}. Per prompt "
            f"in the appendix.\n")


def acoustic_likeness_paragraph(acoustic):
    """How near the voice's acoustic model comes to her held-out recordings (a WER cannot show
    that a voice has drifted from its speaker while staying intelligible)."""
    if acoustic is None:
        return "The acoustic model was not scored against the recordings: see the failures below.\n"
    return (f"Acoustic model against the recordings (`tts train score-acoustic`, "
            f"{acoustic['utterances']} prompts, {acoustic['frames']} frames): aligned log-mel "
            f"error **{acoustic['aligned_mel_l1']:.3f}** (mean absolute difference of natural-log "
            f"mel magnitudes between the model's frames and the recording's, each recording "
            f"aligned to its phonemes by the model's own aligner: how far the voice's spectra lie "
            f"from hers, apart from timing and from the vocoder); duration error "
            f"{acoustic['log_duration_l1']:.3f} in log(1 + frames) per phone; pace: synthesis "
            f"makes {acoustic['length_ratio']:.3f}× her frames for the same transcripts (1 = her "
            f"pace, below 1 faster).\n")


def held_out_section(ctx, held_out, note):
    md = ["## Held-out Asterisk prompts\n"]
    if held_out is None:
        md.append((note or "Not scored: see the failures below.") + "\n")
        return md
    md.append(f"{len(held_out.ids)} of the {held_out.n_all} prompts listed in the voice's "
              f"`held-out.txt` (not trained on), from `{ctx.rel(ctx.corpus)}` (Allison Smith's "
              f"Asterisk prompts). References are the normalised transcripts (third column of "
              f"`metadata.csv`); the TTS and flite rows speak the raw transcript (second column). "
              f"Copy-synthesis is `tts vocode REC.wav -o OUT.wav --model "
              f"{ctx.rel(ctx.vocoder_dir)} --report --seed S`: the recording's log-mel frames "
              f"through the voice's vocoder. Copy-synthesis and TTS sample, so they ran with seeds "
              f"0 to {ctx.seeds[-1]} and the pooled rows are their figures.\n")
    recordings = [held_out.items["recording"][p] for p in held_out.ids]
    md.append(wer_table([("recordings (human)", recordings)]
                        + per_seed_rows(ctx, held_out, ctx.copy_ids,
                                        "copy-synthesis (recording → mel → vocoder)")
                        + per_seed_rows(ctx, held_out, ctx.tts_ids,
                                        ctx.voice_label + " from the text")
                        + [(f"flite {voice} from the text",
                            [held_out.items[sys_id][p] for p in held_out.ids])
                           for sys_id, voice in FLITE_VOICES]))
    md.append("")
    md.append(log_mel_distance_paragraph(ctx, held_out))
    md.append(acoustic_likeness_paragraph(held_out.acoustic))
    return md


def praat_table(rows):
    """Harmonicity and pitch rows (harmonicity_pitch.Row) as a table."""
    def num(x, fmt):
        return "n/a" if x is None else format(x, fmt)
    lines = ["| System | utterances | voiced frames, HNR | **HNR (dB)** | voiced frames, F0 "
             "| F0 mean (Hz) | **F0 median (Hz)** | **F0 SD (semitones, pooled)** "
             "| F0 SD (semitones, median per utterance) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        p = r.pool
        utterances = f"{p.utterances}" + (f" ({r.unmeasured} not measured)" if r.unmeasured else "")
        lines.append(f"| {r.label} | {utterances} | {p.hnr_voiced} | **{num(p.hnr, '.2f')}** | "
                     f"{p.f0_frames} | {num(p.f0_mean, '.1f')} | **{num(p.f0_median, '.1f')}** | "
                     f"**{num(p.f0_sd_semitones, '.2f')}** | "
                     f"{num(p.f0_sd_semitones_median_per_utterance, '.2f')} |")
    return "\n".join(lines)


def harmonicity_pitch_section(ctx, vm):
    """Praat's figures (harmonicity_pitch.VoiceMeasures), the pitch-shift check and the targets."""
    from harmonicity_pitch import pitch_line, verdict
    from praat import HNR_ARGS, PITCH_ARGS
    md = ["## Harmonicity and pitch (Praat)\n",
          f"A second, independent judge: {md_escape(vm.version or 'Praat')}, run headless "
          f"(`praat --run tools/quality/praat_voice.praat LIST`), on the same 16 kHz mono files "
          f"the recogniser heard. HNR: `{HNR_ARGS}`, the mean dB over the frames Praat found "
          f"periodic (above −200 dB, its mark for none), pooled over a system's utterances "
          f"weighted by those frames: how much of the voiced sound is harmonic rather than noise "
          f"(hoarseness, breath and a vocoder's hiss lower it; higher is clearer). F0: "
          f"`{PITCH_ARGS}`, over voiced frames; the SD is in semitones (12·log2(F0/100 Hz)) over "
          f"all of a system's voiced frames pooled, so it counts both the melody within "
          f"utterances and the differences between them (a flat voice has a small one; ours "
          f"should come near her recordings'); the median of the utterances' own SDs is beside "
          f"it. "
          + (f"TTS and copy-synthesis pool their seeds 0–{ctx.seeds[-1]}. " if len(ctx.seeds) > 1
             else f"TTS and copy-synthesis: seed {ctx.seeds[0]} only. ")
          + f"Praat measured {vm.files} files in {vm.praat_seconds:.0f} s.\n"]
    if vm.held_out:
        md.append("Held-out prompts (the same texts as above):\n")
        md.append(praat_table(vm.held_out))
        md.append("")
    else:
        md.append("Held-out prompts: not scored in this run.\n")
    md.append("Development sentences:\n")
    md.append(praat_table(vm.dev))
    md.append("")
    md.append(pitch_line(vm.pitch) + "\n")
    md.append("Targets the project set, against this run's figures:\n")
    md.append("| target | this run | verdict |")
    md.append("|---|---|---|")
    for t in vm.targets:
        md.append(f"| {t.name} | {md_escape(t.figures)} | **{verdict(t.passed)}** |")
    md.append("")
    md.append("Figures per system, per seed and per utterance: `quality/praat.json`.\n")
    return md


def spectrograms_section(ctx, pngs, held_out, rendered=" and the TTS rendering of its text",
                          folder="quality"):
    """The spectrogram picture of one held-out prompt; `rendered` names what follows the
    recording and its copy-synthesis, `folder` where the picture lies beside the report."""
    md = ["## Spectrograms\n"]
    if "spectrograms.png" not in pngs:
        # why there is none: pictures.py left a note
        md.append(" ".join(n for n in ctx.notes if "spectrogram picture" in n) + "\n")
        return md
    s = pngs["spectrograms.png"]
    md.append(f"Log-mel spectrograms (`tts mel`, the voice's features) of the held-out prompt "
              f"`{s['prompt']}` (\"{md_escape(held_out.metadata[s['prompt']][0])}\"): the "
              f"recording, its copy-synthesis{rendered}, on one colour "
              f"scale ({s['vmin']:.1f} to {s['vmax']:.1f}) and one time scale.\n")
    md.append(f"![log-mel spectrograms]({folder}/spectrograms.png)\n")
    return md


def training_log_line(name, parsed):
    if parsed is None:
        return f"- {name}: no log (`training/{name}.log` is missing)."
    if parsed.empty:
        return f"- {name}: the log has no step lines."
    line = (f"- {name}: {len(parsed.train_steps)} logged steps up to step "
            f"{parsed.train_steps[-1]:,} of {parsed.total_steps:,}; last training loss "
            f"{parsed.train_loss[-1]:.4f}")
    if parsed.val_steps:
        line += (f"; last validation {'mel ' if parsed.train_mel else ''}loss "
                 f"{parsed.val_loss[-1]:.4f} at step {parsed.val_steps[-1]:,}")
    return line + "."


def training_section(pngs, logs_info, folder="quality"):
    md = ["## Training\n"]
    if "losses.png" in pngs:
        md.append("Losses parsed from the logs in the voice's `training/` folder (the vocoder's "
                  "validation loss is computed with its EMA weights; the acoustic model's "
                  "validation figure is its mel loss only, so compare it with the green training "
                  "mel loss, not the total).\n")
        md.append(f"![training losses]({folder}/losses.png)\n")
    md += [training_log_line(name, parsed) for name, parsed in logs_info]
    md.append("")
    return md


def speed_section(ctx, speed):
    md = ["## Speed\n"]
    if not speed.runs:
        md.append("Not measured (see the failures below).\n")
        return md
    rtf = speed.median_real_time_factor
    shown = shlex.join(["tts", "bench", "pipeline", "--voice", ctx.rel(ctx.voice_dir),
                        "--threads", "1"])
    md.append(f"`{shown}` (its default five-sentence paragraph), {len(speed.runs)} runs one "
              f"after another, with OMP_NUM_THREADS=OPENBLAS_NUM_THREADS=1: the vocoder on one "
              f"thread, on the machine above. Real-time factor = compute seconds per second of "
              f"audio (below 1 is faster than real time).\n")
    md.append("| run | audio (s) | wall (s) | real-time factor | time to first audio (s) "
              "| load average before |")
    md.append("|---:|---:|---:|---:|---:|---:|")
    for n, b in enumerate(speed.runs, 1):
        md.append(f"| {n} | {b['audio_seconds']:.2f} | {b['wall_seconds']:.2f} | "
                  f"{b['real_time_factor']:.3f} | {b['time_to_first_audio_seconds']:.3f} | "
                  + (f"{b['load_before'][0]:.2f}" if b["load_before"] else "?") + " |")
    md.append("")
    md.append(f"Median real-time factor **{rtf:.3f}** ({1 / rtf:.1f}× real time); median time "
              f"to first audio {speed.median_time_to_first_audio:.3f} s.\n")
    return md


def other_languages_section(ctx):
    """How the other languages are judged, and where this voice's other reports are."""
    import language_targets as lt
    from languages import is_english, report_stem, voice_languages
    others = [t for t in voice_languages(ctx.voice_json) if not is_english(t)]
    md = ["## Other languages\n",
          "A voice in another language (its `voice.json` names the espeak-ng voice as `language` "
          "and the BCP 47 tags as `languages`), or any language passed with `--language TAG`, "
          "gets its own report from the same command: `quality-TAG.md` beside this one, with its "
          "pictures, `praat.json` and the wavs for listening in `quality-TAG/`. It judges the "
          "voice on the held-out prompts of that language's Asterisk corpus (`--corpus`, or "
          "`--corpus-XX` for a voice's second language; the held-out ids from "
          "`VOICE/held-out-TAG.txt`, else the voice's `held-out.txt` for its own language, else "
          "`scripts/corpus/held-out/asterisk-XX.txt`): Praat's HNR and F0 spread of the "
          "recordings, of their copy-synthesis through the voice's vocoder and of the voice "
          "speaking the prompts, beside espeak-ng in the same language; the aligned log-mel "
          "distance of its acoustic model to the recordings (`tts train score-acoustic --lang`); "
          f"and the speed on one thread. Its targets: TTS HNR ≥ copy-synthesis HNR − "
          f"{lt.HNR_MARGIN:g} dB, F0 SD within {lt.F0_SD_TOLERANCE:g} semitones of the "
          f"recordings', aligned log-mel distance ≤ {lt.MEL_FACTOR:g} × that of `voices/default` "
          f"on its own held-out prompts (scored in the same run, or `--reference-mel-distance "
          f"X`), real-time factor at most {100 * lt.SPEED_TOLERANCE:g}% above `voices/default`'s, "
          f"measured in turn on the same machine. It has no word error rate: the recogniser here "
          f"knows US English only.\n"]
    if others:
        md.append("This voice also speaks " + ", ".join(
            f"{t} ([{report_stem(t)}.md]({report_stem(t)}.md))" for t in others) + ".\n")
    return md


def failures_section(ctx):
    md = ["## Failures and notes\n"]
    if not ctx.failures and not ctx.notes:
        md.append("None: every utterance was synthesised and recognised.\n")
    md += [f"- **{section}**: {md_escape(message)}" for section, message in ctx.failures]
    md += [f"- {note}" for note in ctx.notes]
    md.append("")
    return md
