"""The targets a voice in another language than English is judged on, from the figures of one run
(pure arithmetic, so that the verdicts are tested apart from the run):

- its TTS of the held-out prompts keeps the harmonicity of copy-synthesis through its vocoder
  within HNR_MARGIN dB (the acoustic model's share of the noise, the vocoder's being in both);
- its melody moves as much as the speaker's: F0 SD within F0_SD_TOLERANCE semitones of the
  recordings';
- its spectra lie no further from the speaker's recordings than MEL_FACTOR times the English
  voice's own lie from hers (aligned log-mel distance, `tts train score-acoustic`);
- its pipeline is as fast as the English voice's on one thread, within SPEED_TOLERANCE.
"""

from harmonicity_pitch import Target

HNR_MARGIN = 1.5          # dB below copy-synthesis that TTS may lie
F0_SD_TOLERANCE = 0.6     # semitones between TTS's and the recordings' F0 SD
MEL_FACTOR = 1.25         # times the English voice's aligned log-mel distance
SPEED_TOLERANCE = 0.10    # the real-time factor at most this much above the English voice's

NOT_MEASURED = "not measured in this run"


def at_most(x, limit):
    """x ≤ limit, a figure on the limit passing even when the float arithmetic that made either
    lands a hair beside it (3.0 − 3.6 is −0.6000000000000001)."""
    return x <= limit + 1e-9


def hnr_target(tts_hnr, copy_hnr):
    name = f"TTS HNR on the held-out prompts ≥ copy-synthesis HNR − {HNR_MARGIN:g} dB"
    if tts_hnr is None or copy_hnr is None:
        return Target(name, NOT_MEASURED, None)
    needed = copy_hnr - HNR_MARGIN
    return Target(name, f"TTS {tts_hnr:.2f} dB, copy-synthesis {copy_hnr:.2f} dB (needs ≥ "
                        f"{needed:.2f})", at_most(needed, tts_hnr))


def f0_spread_target(tts_sd, recording_sd):
    name = (f"TTS F0 SD on the held-out prompts within {F0_SD_TOLERANCE:g} semitones of the "
            f"recordings'")
    if tts_sd is None or recording_sd is None:
        return Target(name, NOT_MEASURED, None)
    diff = tts_sd - recording_sd
    return Target(name, f"TTS {tts_sd:.2f}, recordings {recording_sd:.2f} semitones (difference "
                        f"{diff:+.2f})", at_most(abs(diff), F0_SD_TOLERANCE))


def mel_distance_target(distance, reference, reference_source):
    """distance: this voice's aligned log-mel distance to its held-out recordings; reference: the
    English voice's to its own, and where that figure came from (in words)."""
    name = (f"aligned log-mel distance of TTS to the held-out recordings ≤ {MEL_FACTOR:g} × the "
            f"English voice's own")
    if distance is None:
        return Target(name, NOT_MEASURED + " (the acoustic model was not scored)", None)
    if reference is None:
        return Target(name, f"{distance:.3f}; no English figure to compare with "
                            f"({reference_source})", None)
    limit = MEL_FACTOR * reference
    return Target(name, f"{distance:.3f}, English voice {reference:.3f} ({reference_source}; "
                        f"needs ≤ {limit:.3f})", at_most(distance, limit))


def speed_target(rtf, reference_rtf):
    """Real-time factors (compute seconds per second of audio, one thread): a faster voice
    passes; a slower one by at most SPEED_TOLERANCE."""
    name = (f"pipeline real-time factor on one thread ≤ the English voice's + "
            f"{100 * SPEED_TOLERANCE:g}%")
    if rtf is None or reference_rtf is None:
        return Target(name, NOT_MEASURED, None)
    limit = reference_rtf * (1 + SPEED_TOLERANCE)
    return Target(name, f"{rtf:.3f}, English voice {reference_rtf:.3f} (ratio "
                        f"{rtf / reference_rtf:.3f}; needs ≤ {limit:.3f})", at_most(rtf, limit))


def judge(recording, copy, tts, acoustic, reference, reference_source, rtf, reference_rtf):
    """[Target]. recording, copy, tts: praat.Pool or None; acoustic: score-acoustic's JSON or
    None; reference: the English aligned log-mel distance or None; rtf, reference_rtf: median
    real-time factors or None."""
    def pool(p, what):
        return getattr(p, what) if p is not None else None
    return [hnr_target(pool(tts, "hnr"), pool(copy, "hnr")),
            f0_spread_target(pool(tts, "f0_sd_semitones"), pool(recording, "f0_sd_semitones")),
            mel_distance_target(acoustic.get("aligned_mel_l1") if acoustic else None,
                                reference, reference_source),
            speed_target(rtf, reference_rtf)]
