// Radiant viewer: the server renders, this page shows the frames, moves the camera and drives
// training. Cameras use the transforms.json convention: 4x4 camera-to-world matrices (row-major,
// world frame), OpenGL axes (x right, y up, looking down -z).
'use strict';

const token = new URLSearchParams(location.search).get('token');
const headers = token ? { 'X-Radiant-Token': token } : {};
const $ = (id) => document.getElementById(id);

// ---- small vector math ----
const add = (a, b) => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
const sub = (a, b) => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const mul = (a, s) => [a[0] * s, a[1] * s, a[2] * s];
const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const norm = (a) => Math.hypot(a[0], a[1], a[2]);
const unit = (a) => mul(a, 1 / (norm(a) || 1));
// Rotation of v about unit axis k by angle t (Rodrigues).
function rotate(v, k, t) {
  const c = Math.cos(t), s = Math.sin(t);
  return add(add(mul(v, c), mul(cross(k, v), s)), mul(k, dot(k, v) * (1 - c)));
}

// ---- camera: position, axes (right, up, back), horizontal field of view ----
const cam = { pos: [0, 0, 4], right: [1, 0, 0], up: [0, 1, 0], back: [0, 0, 1], fov: 0.69, target: [0, 0, 0] };
let scene = null, viewIndex = 0, navMode = 'orbit';

function setFromMatrix(m, fov) {
  cam.right = [m[0][0], m[1][0], m[2][0]];
  cam.up = [m[0][1], m[1][1], m[2][1]];
  cam.back = [m[0][2], m[1][2], m[2][2]];
  cam.pos = [m[0][3], m[1][3], m[2][3]];
  if (fov) cam.fov = fov;
  // Orbit around the point in front of the camera nearest the scene centre.
  const c = scene ? scene.center : [0, 0, 0];
  const forward = mul(cam.back, -1);
  const d = Math.max(dot(sub(c, cam.pos), forward), 0.1 * (scene ? scene.size : 1));
  cam.target = add(cam.pos, mul(forward, d));
}
function cameraMatrix() {
  const m = [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1]];
  for (let r = 0; r < 3; ++r) {
    m[r][0] = cam.right[r]; m[r][1] = cam.up[r]; m[r][2] = cam.back[r]; m[r][3] = cam.pos[r];
  }
  return m;
}
function orthonormalize() {
  cam.back = unit(cam.back);
  cam.right = unit(cross(cam.up, cam.back));
  cam.up = cross(cam.back, cam.right);
}
function rotateCamera(axis, angle, pivot) {
  cam.right = rotate(cam.right, axis, angle);
  cam.up = rotate(cam.up, axis, angle);
  cam.back = rotate(cam.back, axis, angle);
  if (pivot) cam.pos = add(pivot, rotate(sub(cam.pos, pivot), axis, angle));
  orthonormalize();
}

// ---- server calls ----
async function api(path, body) {
  const r = await fetch(path, body === undefined ? { headers } :
    { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  if (!r.ok) {
    let msg = r.status + '';
    try { msg = (await r.json()).error || msg; } catch (e) { /* not JSON */ }
    throw new Error(msg);
  }
  return r;
}
function say(text) { $('message').textContent = text; }

// ---- rendering: previews while moving, a refined frame once the camera rests ----
const clientId = Math.random().toString(36).slice(2);
let seq = 0, inflight = false, dirty = true, lastChange = performance.now(), refineTimer = null, shownUrl = null;
let controller = null;

function viewportSize(scale) {
  const v = $('view');
  const w = Math.max(16, Math.round(v.clientWidth * scale)), h = Math.max(16, Math.round(v.clientHeight * scale));
  return [w, h];
}
function renderBody(w, h, format) {
  const fl = 0.5 * w / Math.tan(0.5 * cam.fov);
  return { transform_matrix: cameraMatrix(), fl_x: fl, fl_y: fl, cx: w / 2, cy: h / 2, w, h,
           mode: $('mode').value, format, quality: format === 'jpeg' ? 88 : undefined, client: clientId, seq: ++seq };
}
async function requestFrame(kind) {
  if (!scene) return;
  const training = status && status.training && !status.paused && !status.finished;
  // While training, frames are small so that the viewer takes little from the trainer.
  const scale = kind === 'refined' ? (training ? 0.5 : 1) : kind === 'live' ? 0.25 : previewScale(training);
  const [w, h] = viewportSize(scale);
  const body = renderBody(w, h, 'jpeg');
  if (controller) controller.abort();
  controller = new AbortController();
  inflight = true;
  const t0 = performance.now();
  try {
    const r = await fetch('/api/render', { method: 'POST', signal: controller.signal,
      headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    if (r.status === 409) return;  // superseded by a newer request of ours
    if (!r.ok) throw new Error((await r.json()).error || r.status);
    const blob = await r.blob();
    if (body.seq < shownSeq) return;
    shownSeq = body.seq;
    const url = URL.createObjectURL(blob);
    $('frame').src = url;
    if (shownUrl) URL.revokeObjectURL(shownUrl);
    shownUrl = url;
    const ms = performance.now() - t0;
    // The server's speed (pixels per second, smoothed) sets the size of the next previews.
    const rate = w * h / Math.max(ms, 1) * 1000;
    pixelRate = pixelRate ? 0.7 * pixelRate + 0.3 * rate : rate;
    $('badge').textContent = `${kind} ${w}x${h} · ${Math.round(ms)} ms`;
    frames += 1;
  } catch (e) {
    if (e.name !== 'AbortError') say('render: ' + e.message);
  } finally {
    inflight = false;
    pump();
  }
}
let shownSeq = 0, frames = 0, pixelRate = 0;
// Previews as large as the server renders in ~80 ms (about 10 frames/s with the transfer),
// between 1/16 and 1/2 of the window (1/4 at most while training, to leave the trainer room).
function previewScale(training) {
  const [W, H] = viewportSize(1);
  const fit = pixelRate ? Math.sqrt(0.08 * pixelRate / (W * H)) : 0.25;
  return Math.min(Math.max(fit, 1 / 16), training ? 0.25 : 0.5);
}
function changed() {
  dirty = true;
  lastChange = performance.now();
  drawOverlay();
  pump();
}
function pump() {
  if (inflight) return;
  if (dirty) {
    dirty = false;
    requestFrame('preview');
    clearTimeout(refineTimer);
    refineTimer = setTimeout(() => { if (!dirty) requestFrame('refined'); }, 250);
  }
}
// While training, the view follows the model every few seconds (when the camera rests).
setInterval(() => {
  if (status && status.training && !status.paused && !status.finished && performance.now() - lastChange > 2000 && !inflight)
    requestFrame('live');
}, 5000);

// ---- overlay: scene box and training camera frustums ----
function project(p, w, h) {
  const d = sub(p, cam.pos);
  const x = dot(d, cam.right), y = dot(d, cam.up), z = -dot(d, cam.back);
  if (z < 1e-3) return null;
  const f = 0.5 * w / Math.tan(0.5 * cam.fov);
  return [w / 2 + f * x / z, h / 2 - f * y / z];
}
function line(ctx, a, b, w, h) {
  const pa = project(a, w, h), pb = project(b, w, h);
  if (!pa || !pb) return;
  ctx.beginPath(); ctx.moveTo(pa[0], pa[1]); ctx.lineTo(pb[0], pb[1]); ctx.stroke();
}
function drawOverlay() {
  const c = $('overlay'), v = $('view');
  c.width = v.clientWidth; c.height = v.clientHeight;
  const ctx = c.getContext('2d'), w = c.width, h = c.height;
  ctx.clearRect(0, 0, w, h);
  if (!scene) return;
  ctx.lineWidth = 1;
  if ($('show-box').checked) {
    ctx.strokeStyle = 'rgba(40,140,255,0.7)';
    const lo = scene.box.lo, hi = scene.box.hi;
    const corner = (i) => [i & 1 ? hi[0] : lo[0], i & 2 ? hi[1] : lo[1], i & 4 ? hi[2] : lo[2]];
    for (let i = 0; i < 8; ++i)
      for (const b of [1, 2, 4]) if (!(i & b)) line(ctx, corner(i), corner(i | b), w, h);
  }
  if ($('show-frustums').checked) {
    const s = 0.08 * scene.size;
    scene.views.forEach((v, i) => {
      ctx.strokeStyle = i === viewIndex ? 'rgba(255,80,40,0.95)' : 'rgba(255,170,0,0.6)';
      const m = v.transform_matrix, o = [m[0][3], m[1][3], m[2][3]];
      const R = [[m[0][0], m[1][0], m[2][0]], [m[0][1], m[1][1], m[2][1]], [m[0][2], m[1][2], m[2][2]]];
      const corners = [[0, 0], [v.w, 0], [v.w, v.h], [0, v.h]].map(([px, py]) => {
        const x = (px - v.cx) / v.fl_x, y = -(py - v.cy) / v.fl_y;
        return add(o, mul(add(add(mul(R[0], x), mul(R[1], y)), mul(R[2], -1)), s));
      });
      corners.forEach((c, k) => { line(ctx, o, c, w, h); line(ctx, c, corners[(k + 1) % 4], w, h); });
    });
  }
}

function goToView(i) {
  if (!scene || !scene.views.length) return;
  viewIndex = (i + scene.views.length) % scene.views.length;
  const v = scene.views[viewIndex];
  setFromMatrix(v.transform_matrix, 2 * Math.atan(0.5 * v.w / v.fl_x));
  $('camera-index').textContent = `${viewIndex + 1} / ${scene.views.length}`;
  changed();
}

// ---- input ----
let drag = null;
const view = $('view');
view.addEventListener('pointerdown', (e) => {
  drag = { x: e.clientX, y: e.clientY, pan: e.button === 2 || e.shiftKey };
  view.setPointerCapture(e.pointerId);
  view.classList.add('dragging');
});
view.addEventListener('pointermove', (e) => {
  if (!drag) return;
  const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
  drag.x = e.clientX; drag.y = e.clientY;
  const up = scene ? scene.up : [0, 0, 1];
  if (drag.pan) {
    const dist = norm(sub(cam.target, cam.pos)), k = 2 * dist * Math.tan(0.5 * cam.fov) / view.clientWidth;
    const move = add(mul(cam.right, -dx * k), mul(cam.up, dy * k));
    cam.pos = add(cam.pos, move); cam.target = add(cam.target, move);
  } else if (navMode === 'orbit') {
    rotateCamera(up, -dx * 0.006, cam.target);
    const pitched = rotate(cam.back, cam.right, -dy * 0.006);
    if (Math.abs(dot(pitched, up)) < 0.98) rotateCamera(cam.right, -dy * 0.006, cam.target);
  } else {
    rotateCamera(up, -dx * 0.004, null);
    rotateCamera(cam.right, -dy * 0.004, null);
    cam.target = add(cam.pos, mul(cam.back, -norm(sub(cam.target, cam.pos))));
  }
  changed();
});
const endDrag = () => { drag = null; view.classList.remove('dragging'); };
view.addEventListener('pointerup', endDrag);
view.addEventListener('pointercancel', endDrag);
view.addEventListener('contextmenu', (e) => e.preventDefault());
view.addEventListener('wheel', (e) => {
  e.preventDefault();
  const toTarget = sub(cam.target, cam.pos), k = Math.pow(1.1, Math.sign(e.deltaY));
  cam.pos = sub(cam.target, mul(toTarget, k));
  changed();
}, { passive: false });

const keys = new Set();
window.addEventListener('keydown', (e) => {
  if (e.target.tagName === 'INPUT') return;
  if (e.key === '[') goToView(viewIndex - 1);
  else if (e.key === ']') goToView(viewIndex + 1);
  else keys.add(e.key.toLowerCase());
});
window.addEventListener('keyup', (e) => keys.delete(e.key.toLowerCase()));
let lastTick = performance.now();
function tick(now) {
  const dt = Math.min(0.1, (now - lastTick) / 1000);
  lastTick = now;
  if (scene && keys.size) {
    const speed = 0.4 * scene.size * dt, up = scene.up;
    let move = [0, 0, 0];
    if (keys.has('w')) move = add(move, mul(cam.back, -speed));
    if (keys.has('s')) move = add(move, mul(cam.back, speed));
    if (keys.has('a')) move = add(move, mul(cam.right, -speed));
    if (keys.has('d')) move = add(move, mul(cam.right, speed));
    if (keys.has('e')) move = add(move, mul(up, speed));
    if (keys.has('q')) move = add(move, mul(up, -speed));
    if (norm(move) > 0) {
      cam.pos = add(cam.pos, move); cam.target = add(cam.target, move);
      changed();
    }
  }
  if (playing) playStep(now);
  requestAnimationFrame(tick);
}

// ---- training panel ----
let status = null;
async function pollStatus() {
  try {
    status = await (await api('/api/status')).json();
    showStatus();
  } catch (e) {
    say('status: ' + e.message);
  }
  setTimeout(pollStatus, 1000);
}
function showStatus() {
  const s = status;
  $('pause').disabled = !s.training || s.paused || s.finished;
  $('resume').disabled = !s.training || !s.paused;
  $('save').disabled = !s.training;
  if (!s.training) { $('train-status').textContent = 'not training (a saved snapshot)'; drawCurve(); return; }
  const total = s.total_steps ? `/${s.total_steps}` : '';
  const psnr = s.psnr.length ? ` · val ${s.psnr[s.psnr.length - 1][2].toFixed(2)} dB` : '';
  $('train-status').textContent = `${s.finished ? 'finished' : s.paused ? 'paused' : 'training'} · step ${s.step}${total} · ` +
    `${s.seconds.toFixed(0)} s · loss ${s.loss.toExponential(2)} · ${(s.samples_per_second / 1e3).toFixed(0)}k samples/s${psnr}`;
  if (s.message) say(s.message);
  drawCurve();
}
function drawCurve() {
  const c = $('curve'), ctx = c.getContext('2d');
  ctx.clearRect(0, 0, c.width, c.height);
  if (!status || !status.training) return;
  const pad = 22, w = c.width - pad - 4, h = c.height - 16;
  const series = status.psnr.length ? status.psnr.map((p) => [p[1], p[2]])
                                    : status.loss_history.map((p) => [p[1], -10 * Math.log10(Math.max(p[2], 1e-10))]);
  if (series.length < 1) return;
  const tmax = Math.max(1, ...series.map((p) => p[0])), ymin = Math.min(...series.map((p) => p[1])) - 0.5,
        ymax = Math.max(...series.map((p) => p[1])) + 0.5;
  ctx.strokeStyle = '#6cf'; ctx.lineWidth = 1.5; ctx.beginPath();
  series.forEach(([t, y], i) => {
    const x = pad + w * t / tmax, yy = 4 + h * (1 - (y - ymin) / (ymax - ymin));
    if (i) ctx.lineTo(x, yy); else ctx.moveTo(x, yy);
  });
  ctx.stroke();
  ctx.fillStyle = '#aaa'; ctx.font = '10px sans-serif';
  ctx.fillText(`${ymax.toFixed(1)}`, 0, 10); ctx.fillText(`${ymin.toFixed(1)}`, 0, h + 4);
  ctx.fillText(status.psnr.length ? 'val PSNR (dB) over training seconds' : 'training PSNR from the loss', pad, c.height - 2);
}
for (const what of ['pause', 'resume', 'save'])
  $(what).addEventListener('click', () => api('/api/train/' + what, {}).then(() => say(what + ' requested'), (e) => say(e.message)));

// ---- camera path editor ----
let keyframes = [], playing = false, playStart = 0;
function showKeys() { $('key-count').textContent = `${keyframes.length} keyframe${keyframes.length === 1 ? '' : 's'}`; }
$('key-add').addEventListener('click', () => { keyframes.push({ m: cameraMatrix(), fov: cam.fov }); showKeys(); });
$('key-pop').addEventListener('click', () => { keyframes.pop(); showKeys(); });
$('key-clear').addEventListener('click', () => { keyframes = []; showKeys(); });
function pathJson() {
  const [w, h] = viewportSize(1);
  return { format: 'radiant-camera-path', version: 1, width: w, height: h, fps: +$('path-fps').value,
           seconds: +$('path-seconds').value, loop: $('path-loop').checked,
           keyframes: keyframes.map((k) => ({ transform_matrix: k.m, camera_angle_x: k.fov })) };
}
$('path-save').addEventListener('click', () => {
  if (keyframes.length < 2) return say('a path needs at least 2 keyframes');
  download(new Blob([JSON.stringify(pathJson(), null, 2)], { type: 'application/json' }), 'camera_path.json');
});
$('path-load').addEventListener('change', async (e) => {
  try {
    const j = JSON.parse(await e.target.files[0].text());
    if (j.format !== 'radiant-camera-path' || !Array.isArray(j.keyframes)) throw new Error('not a radiant camera path');
    keyframes = j.keyframes.map((k) => ({ m: k.transform_matrix, fov: k.camera_angle_x || cam.fov }));
    $('path-seconds').value = j.seconds || 5; $('path-fps').value = j.fps || 30; $('path-loop').checked = !!j.loop;
    showKeys();
    say(`loaded ${keyframes.length} keyframes`);
  } catch (err) { say('load: ' + err.message); }
});
// The same spline as `radiant render --path`: Catmull-Rom on positions, quaternions, fov.
function quat(m) {
  const t = m[0][0] + m[1][1] + m[2][2];
  let q;
  if (t > m[0][0] && t > m[1][1] && t > m[2][2]) { const s = Math.sqrt(1 + t) * 2; q = [0.25 * s, (m[2][1] - m[1][2]) / s, (m[0][2] - m[2][0]) / s, (m[1][0] - m[0][1]) / s]; }
  else if (m[0][0] > m[1][1] && m[0][0] > m[2][2]) { const s = Math.sqrt(1 + m[0][0] - m[1][1] - m[2][2]) * 2; q = [(m[2][1] - m[1][2]) / s, 0.25 * s, (m[0][1] + m[1][0]) / s, (m[0][2] + m[2][0]) / s]; }
  else if (m[1][1] > m[2][2]) { const s = Math.sqrt(1 + m[1][1] - m[0][0] - m[2][2]) * 2; q = [(m[0][2] - m[2][0]) / s, (m[0][1] + m[1][0]) / s, 0.25 * s, (m[1][2] + m[2][1]) / s]; }
  else { const s = Math.sqrt(1 + m[2][2] - m[0][0] - m[1][1]) * 2; q = [(m[1][0] - m[0][1]) / s, (m[0][2] + m[2][0]) / s, (m[1][2] + m[2][1]) / s, 0.25 * s]; }
  return q;
}
function quatMatrix(q) {
  const n = Math.hypot(...q), [w, x, y, z] = q.map((v) => v / n);
  return [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
          [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
          [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]];
}
const cr = (p0, p1, p2, p3, t) => 0.5 * (2 * p1 + (-p0 + p2) * t + (2 * p0 - 5 * p1 + 4 * p2 - p3) * t * t + (-p0 + 3 * p1 - 3 * p2 + p3) * t * t * t);
function samplePath(u) {
  const n = keyframes.length, loop = $('path-loop').checked, segs = loop ? n : n - 1;
  const s = Math.min(Math.max(u, 0), 1) * segs, i = Math.min(Math.floor(s), segs - 1), t = s - i;
  const at = (j) => keyframes[loop ? ((j % n) + n) % n : Math.min(Math.max(j, 0), n - 1)];
  const k = [at(i - 1), at(i), at(i + 1), at(i + 2)];
  const q1 = quat(k[1].m), qs = k.map((kf) => { const q = quat(kf.m); return dot4(q, q1) < 0 ? q.map((v) => -v) : q; });
  const q = [0, 1, 2, 3].map((c) => cr(qs[0][c], qs[1][c], qs[2][c], qs[3][c], t));
  const R = quatMatrix(q), p = [0, 1, 2].map((a) => cr(k[0].m[a][3], k[1].m[a][3], k[2].m[a][3], k[3].m[a][3], t));
  return { m: [[...R[0], p[0]], [...R[1], p[1]], [...R[2], p[2]], [0, 0, 0, 1]], fov: cr(k[0].fov, k[1].fov, k[2].fov, k[3].fov, t) };
}
const dot4 = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
$('path-play').addEventListener('click', () => {
  if (keyframes.length < 2) return say('a path needs at least 2 keyframes');
  playing = true; playStart = performance.now();
});
function playStep(now) {
  const u = (now - playStart) / 1000 / Math.max(0.1, +$('path-seconds').value);
  const k = samplePath(Math.min(u, 1));
  setFromMatrix(k.m, k.fov);
  changed();
  if (u >= 1) playing = false;
}

// ---- the rest of the panel ----
function download(blob, name) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob); a.download = name;
  document.body.appendChild(a); a.click(); a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}
$('screenshot').addEventListener('click', async () => {
  const [w, h] = viewportSize(1);
  try { download(await (await api('/api/render', renderBody(w, h, 'png'))).blob(), 'radiant-view.png'); }
  catch (e) { say('screenshot: ' + e.message); }
});
$('mode').addEventListener('change', changed);
$('nav').addEventListener('change', (e) => { navMode = e.target.value; });
$('prev').addEventListener('click', () => goToView(viewIndex - 1));
$('next').addEventListener('click', () => goToView(viewIndex + 1));
$('show-frustums').addEventListener('change', drawOverlay);
$('show-box').addEventListener('change', drawOverlay);
window.addEventListener('resize', changed);

async function start() {
  try {
    scene = await (await api('/api/scene')).json();
    scene.size = norm(sub(scene.box.hi, scene.box.lo)) || 1;
    goToView(0);
  } catch (e) {
    say('scene: ' + e.message);
  }
  pollStatus();
  requestAnimationFrame(tick);
}
// For tests and scripts: how many frames have been shown.
window.radiantViewer = { frames: () => frames, camera: () => cameraMatrix() };
start();
