// The studio of `tts serve --studio DIR` (serve/include/tts/serve/studio.h), added to the page below the
// player when /health says the server has one: prompts one at a time, recorded from the microphone with a
// level meter, checked here and again by the server, sent as 16-bit PCM WAV at the browser's
// rate; then a voice job (`tts voices create`) with its progress, and the new voice spoken.
// It uses the page's own authorization(), errorText(), loadVoices() and its form.
"use strict";
(() => {
const QUIET_DBFS = -50;      // the server refuses a take quieter than this over its length
const CLIPPED = 0.001;       // more of a take at full scale than this: a warning
const section = document.createElement("section");
section.id = "studio";
section.hidden = true;
section.dataset.state = "off";
section.innerHTML = `
<style>
  #studio { border-top: 1px solid #8884; margin-top: 1.5rem; padding-top: 0.5rem; }
  #studio h2 { font-size: 1.2rem; }
  #studio-prompt { font-size: 1.25rem; margin: 0.6rem 0; padding: 0.6rem 0.9rem; border-left: 4px solid #2f6fed; }
  #studio-level, #studio-job-progress { width: 100%; }
  #studio-warning[data-bad] { color: #c22; font-weight: 600; }
  #studio .buttons { flex-wrap: wrap; }
</style>
<h2>Studio: make a voice of your own</h2>
<p class="hint">Read each sentence aloud. A voice needs at least <span id="studio-least">5</span>
  minutes of takes; 20 or more make a better one.</p>
<div class="row">
  <div><label for="studio-name">Voice name</label>
    <input id="studio-name" value="my-voice" pattern="[A-Za-z0-9_][A-Za-z0-9_-]{0,63}" aria-describedby="studio-name-hint">
    <p class="hint" id="studio-name-hint">Letters, digits, - and _.</p></div>
  <div><label for="studio-lang">Language</label><select id="studio-lang"></select></div>
</div>
<div class="buttons"><button id="studio-open" type="button">Open</button></div>
<div id="studio-session" hidden>
  <p id="studio-count"></p>
  <blockquote id="studio-prompt"></blockquote>
  <label for="studio-level">Level</label>
  <meter id="studio-level" min="0" max="1" low="0.2" high="0.9" optimum="0.5" value="0"></meter>
  <p id="studio-warning" role="alert"></p>
  <div class="buttons">
    <button id="studio-record" type="button">Record</button>
    <button id="studio-play" type="button" disabled>Play back</button>
    <button id="studio-keep" type="button" disabled>Keep</button>
    <button id="studio-skip" type="button">Skip</button>
  </div>
  <div class="buttons">
    <button id="studio-create" type="button">Create the voice</button>
    <button id="studio-cancel" type="button" disabled>Cancel</button>
  </div>
</div>
<label for="studio-job-progress">Voice job</label>
<progress id="studio-job-progress" max="1" value="0"></progress>
<p id="studio-job" role="status" aria-live="polite">No voice job has run.</p>`;
document.body.append(section);

const $s = (id) => document.getElementById("studio-" + id);
let studio = null, session = null, take = null, recorder = null, polling = null, lastJob = null;

function say(message, bad = false) {
  const line = $s("warning");
  line.textContent = message;
  if (bad) line.dataset.bad = ""; else delete line.dataset.bad;
}

async function call(method, path, body, type) {
  const headers = authorization();
  if (type) headers["Content-Type"] = type;
  const response = await fetch(path, {method, headers, body});
  if (!response.ok) throw new Error(await errorText(response));
  return response.json();
}

function name() { return $s("name").value.trim(); }
function lang() { return $s("lang").value; }

function showSession(s) {
  session = s;
  $s("lang").value = s.language;
  const minutes = s.minutes.toFixed(1), left = s.minutes_left.toFixed(1);
  $s("count").textContent = (s.prompt ? `Prompt ${s.prompt.number} of ${s.prompts}` : "Every prompt is recorded") +
    ` · ${s.clips} takes, ${minutes} min recorded · ${left} min still wanted`;
  $s("prompt").textContent = s.prompt ? s.prompt.text : "";
  section.dataset.clips = s.clips;
  section.dataset.minutes = s.minutes;
  $s("record").disabled = !s.prompt;
  $s("skip").disabled = !s.prompt;
}

async function open() {
  if (!/^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$/.test(name()))
    return say("The voice's name: 1 to 64 letters, digits, - and _.", true);
  try {
    showSession(await call("GET", `v1/studio/voices/${encodeURIComponent(name())}?lang=${lang()}`));
    $s("session").hidden = false;
    section.dataset.state = "ready";
    say("");
  } catch (e) {
    say(e.message, true);
  }
}

async function startRecording() {
  let stream;
  try {
    stream = await navigator.mediaDevices.getUserMedia(
        {audio: {echoCancellation: false, noiseSuppression: false, autoGainControl: false}});
  } catch (e) {
    return say("No microphone: " + e.message, true);
  }
  const context = new AudioContext();
  const source = context.createMediaStreamSource(stream);
  const processor = context.createScriptProcessor(4096, 1, 1);
  const chunks = [];
  processor.onaudioprocess = (event) => {
    const x = event.inputBuffer.getChannelData(0);
    chunks.push(new Float32Array(x));
    let sum = 0;
    for (const v of x) sum += v * v;
    const db = 10 * Math.log10(sum / x.length + 1e-12);
    $s("level").value = Math.max(0, Math.min(1, (db + 60) / 60));
  };
  source.connect(processor);
  processor.connect(context.destination);
  recorder = {stream, context, processor, chunks};
  take = null;
  $s("record").textContent = "Stop";
  $s("play").disabled = $s("keep").disabled = $s("skip").disabled = true;
  section.dataset.state = "recording";
  say("Recording… read the sentence, then press Stop.");
}

function stopRecording() {
  const {stream, context, processor, chunks} = recorder;
  recorder = null;
  processor.disconnect();
  stream.getTracks().forEach((t) => t.stop());
  const count = chunks.reduce((n, c) => n + c.length, 0);
  const samples = new Float32Array(count);
  let at = 0;
  for (const c of chunks) { samples.set(c, at); at += c.length; }
  context.close();
  let sum = 0, full = 0;
  for (const v of samples) { sum += v * v; if (Math.abs(v) >= 0.999) full++; }
  const rms = 10 * Math.log10(sum / Math.max(1, count) + 1e-12);
  take = {samples, rate: context.sampleRate, seconds: count / context.sampleRate, rms,
          clipped: full / Math.max(1, count)};
  $s("record").textContent = "Record again";
  $s("play").disabled = $s("keep").disabled = $s("skip").disabled = false;
  $s("level").value = 0;
  section.dataset.state = "recorded";
  section.dataset.takeSeconds = take.seconds.toFixed(2);
  if (rms < QUIET_DBFS) say(`This take is silent or far too quiet (${rms.toFixed(0)} dBFS): come closer or raise the microphone's level.`, true);
  else if (take.clipped > CLIPPED) say("This take clips: lower the microphone's level and record again.", true);
  else say(`${take.seconds.toFixed(1)} s recorded. Play it back, keep it, or record again.`);
}

function wav({samples, rate}) {
  const view = new DataView(new ArrayBuffer(44 + 2 * samples.length));
  const text = (at, s) => [...s].forEach((c, i) => view.setUint8(at + i, c.charCodeAt(0)));
  text(0, "RIFF"); view.setUint32(4, 36 + 2 * samples.length, true); text(8, "WAVE");
  text(12, "fmt "); view.setUint32(16, 16, true); view.setUint16(20, 1, true);
  view.setUint16(22, 1, true); view.setUint32(24, rate, true); view.setUint32(28, 2 * rate, true);
  view.setUint16(32, 2, true); view.setUint16(34, 16, true);
  text(36, "data"); view.setUint32(40, 2 * samples.length, true);
  samples.forEach((v, i) => view.setInt16(44 + 2 * i, Math.max(-32768, Math.min(32767, Math.round(v * 32767))), true));
  return view.buffer;
}

function playBack() {
  const context = new AudioContext({sampleRate: take.rate});
  const buffer = context.createBuffer(1, take.samples.length, take.rate);
  buffer.getChannelData(0).set(take.samples);
  const source = context.createBufferSource();
  source.buffer = buffer;
  source.connect(context.destination);
  source.onended = () => context.close();
  source.start();
}

async function keep() {
  $s("keep").disabled = true;
  section.dataset.state = "sending";
  try {
    const s = await call("POST", `v1/studio/voices/${encodeURIComponent(name())}/takes?lang=${lang()}&prompt=${session.prompt.index}`,
                         wav(take), "audio/wav");
    take = null;
    $s("play").disabled = true;
    $s("record").textContent = "Record";
    showSession(s);
    say(`Kept (${s.take.seconds.toFixed(1)} s). Next sentence.`);
    section.dataset.state = "ready";
  } catch (e) {
    $s("keep").disabled = false;
    section.dataset.state = "refused";
    say("The server refused the take: " + e.message, true);
  }
}

async function skip() {
  try {
    showSession(await call("POST", `v1/studio/voices/${encodeURIComponent(name())}/skip?lang=${lang()}&prompt=${session.prompt.index}`));
    take = null;
    $s("record").textContent = "Record";
    $s("play").disabled = $s("keep").disabled = true;
    section.dataset.state = "ready";
    say("Skipped; it comes round again at the end.");
  } catch (e) {
    say(e.message, true);
  }
}

function showJob(job) {
  const was = lastJob;
  lastJob = job;
  section.dataset.job = job.state;
  $s("cancel").disabled = job.state !== "running";
  $s("create").disabled = job.state === "running";
  const line = $s("job");
  if (job.state === "idle") return;
  const stage = `stage ${job.stage_index + 1} of ${job.stages}, ${job.stage}`;
  const training = job.stage === "training" || job.stage === "vocoder";
  const progress = (job.stage_index + (training ? job.fraction : 0)) / job.stages;
  $s("job-progress").value = job.state === "done" ? 1 : progress;
  if (job.state === "running") {
    const left = job.minutes_left == null ? "" : ` · about ${job.minutes_left.toFixed(1)} min left`;
    line.textContent = `Making “${job.voice}”: ${stage}${job.what ? " (" + job.what + ")" : ""}${left}`;
  } else if (job.state === "done") {
    line.textContent = `“${job.voice}” is made. Verdict on its held-out prompts: ${job.result.verdict}.`;
    section.dataset.verdict = job.result.verdict;
  } else {
    line.textContent = `The voice job ${job.state === "cancelled" ? "was cancelled" : "failed"}: ${job.message || ""}`;
  }
  if (job.state === "done" && was && was.state === "running") speakWith(job.voice);
}

async function speakWith(voice) {
  await loadVoices();
  const select = document.getElementById("voice");
  select.value = voice;
  select.dispatchEvent(new Event("change"));
  document.getElementById("text").value = "Hello! This is my own voice, made from my recordings.";
  document.getElementById("form").requestSubmit();
}

async function poll() {
  try {
    const job = await call("GET", "v1/studio/job");
    showJob(job);
    if (job.state !== "running") { clearInterval(polling); polling = null; }
  } catch (e) {
    $s("job").textContent = "The job: " + e.message;
  }
}

function follow() {
  if (!polling) polling = setInterval(poll, 1000);
}

async function create() {
  try {
    showJob(await call("POST", `v1/studio/voices/${encodeURIComponent(name())}/create`));
    follow();
  } catch (e) {
    say("Create: " + e.message, true);
  }
}

async function cancel() {
  try {
    showJob(await call("POST", "v1/studio/job/cancel"));
  } catch (e) {
    say("Cancel: " + e.message, true);
  }
}

async function start() {
  if (studio) return;
  try {
    if (!(await (await fetch("health")).json()).studio) return;  // no --studio: a player only
    const response = await fetch("v1/studio", {headers: authorization()});
    if (!response.ok) return;
    studio = await response.json();
  } catch {
    return;
  }
  $s("lang").replaceChildren(...studio.languages.map((l) => new Option(`${l.code} (${l.prompts} prompts)`, l.code)));
  $s("least").textContent = studio.limits.least_minutes;
  if (studio.voices.length) {
    $s("name").value = studio.voices[0].name;
    $s("lang").value = studio.voices[0].language;
  }
  section.hidden = false;
  section.dataset.state = "closed";
  showJob(studio.job);
  if (studio.job.state === "running") follow();
  if (studio.voices.length) open();  // a reload continues where it stopped
}

$s("open").addEventListener("click", open);
$s("record").addEventListener("click", () => (recorder ? stopRecording() : startRecording()));
$s("play").addEventListener("click", playBack);
$s("keep").addEventListener("click", keep);
$s("skip").addEventListener("click", skip);
$s("create").addEventListener("click", create);
$s("cancel").addEventListener("click", cancel);
document.addEventListener("voices-loaded", start);
if (document.getElementById("player").dataset.state === "ready") start();
})();
