// Table sounds, generated with Web Audio (no audio files): your turn, a card played, a trick won,
// the end of a deal. Off by default; the "sound" setting (settings.js) turns them on.
import { onSettingChange, setting } from "./settings.js";

let ctx = null;

function context() {
  if (ctx) return ctx;
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (!Ctx) return null;
  try {
    ctx = new Ctx();
  } catch {
    ctx = null;
  }
  return ctx;
}

// Browsers start audio only after a gesture: the first tap or key on the page resumes it.
function unlock() {
  if (!setting("sound")) return;
  const c = context();
  if (c && c.state === "suspended") c.resume().catch(() => {});
}
for (const type of ["pointerdown", "keydown"]) document.addEventListener(type, unlock, { capture: true, passive: true });
onSettingChange((name, on) => {
  if (name === "sound" && on) {
    unlock();
    play("turn"); // let the player hear what was switched on
  }
});

/** A tone: frequency `freq` Hz from `at` s for `length` s, with a quick attack and decay. */
function tone(c, freq, at, length, { type = "sine", gain = 0.18, glide = null } = {}) {
  const osc = c.createOscillator();
  const amp = c.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, at);
  if (glide) osc.frequency.exponentialRampToValueAtTime(glide, at + length);
  amp.gain.setValueAtTime(0.0001, at);
  amp.gain.exponentialRampToValueAtTime(gain, at + 0.012);
  amp.gain.exponentialRampToValueAtTime(0.0001, at + length);
  osc.connect(amp).connect(c.destination);
  osc.start(at);
  osc.stop(at + length + 0.02);
}

/** A short burst of filtered noise: the snap of a card on the felt. */
function snap(c, at) {
  const length = 0.07;
  const buffer = c.createBuffer(1, Math.ceil(c.sampleRate * length), c.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < data.length; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / data.length) ** 2;
  const src = c.createBufferSource();
  src.buffer = buffer;
  const filter = c.createBiquadFilter();
  filter.type = "bandpass";
  filter.frequency.value = 1800;
  filter.Q.value = 0.8;
  const amp = c.createGain();
  amp.gain.value = 0.5;
  src.connect(filter).connect(amp).connect(c.destination);
  src.start(at);
}

const SOUNDS = {
  turn(c, t0) {
    tone(c, 660, t0, 0.16);
    tone(c, 880, t0 + 0.12, 0.24);
  },
  card(c, t0) {
    snap(c, t0);
  },
  trick(c, t0) {
    tone(c, 520, t0, 0.18, { type: "triangle", gain: 0.14, glide: 390 });
  },
  // the decision clock's last seconds (table-live.js)
  alarm(c, t0) {
    for (let i = 0; i < 3; i++) tone(c, 988, t0 + i * 0.18, 0.09, { type: "square", gain: 0.08 });
  },
  deal_end(c, t0) {
    [523.25, 659.25, 783.99, 1046.5].forEach((f, i) => tone(c, f, t0 + i * 0.11, 0.3, { type: "triangle", gain: 0.13 }));
  },
};

/** Play one of the table's sounds (`turn`, `card`, `trick`, `alarm`, `deal_end`) when sound is on. */
export function play(name) {
  if (!setting("sound") || !SOUNDS[name]) return;
  const c = context();
  if (!c) return;
  if (c.state === "suspended") c.resume().catch(() => {});
  try {
    SOUNDS[name](c, c.currentTime + 0.01);
  } catch {
    /* a sound is never worth an error at the table */
  }
}
