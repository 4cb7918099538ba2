// The web viewer in a real browser (Debian's headless Chromium, driven by puppeteer-core):
//   1. `radiant view SNAPSHOT`: the page loads with no console errors, shows a frame of the scene
//      with the training cameras drawn over it, a drag changes the frame, the depth mode differs.
//   2. `radiant train SCENE --view`: the training panel follows the trainer (step rises, the
//      curve is drawn) and its Pause button stops the steps.
// Usage: node viewer_test.mjs RADIANT_BINARY. Exit 77 (ctest: skipped) where Chromium cannot start.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const SKIP = 77;
const radiant = process.argv[2];
if (!radiant || !fs.existsSync(radiant)) {
  console.error('usage: node viewer_test.mjs RADIANT_BINARY');
  process.exit(2);
}
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
if (!fs.existsSync(chromiumPath)) {
  console.log(`skipped: no Chromium at ${chromiumPath} (bash scripts/setup.sh installs Debian's chromium)`);
  process.exit(SKIP);
}
let puppeteer;
try {
  puppeteer = (await import('puppeteer-core')).default;
} catch (e) {
  console.log('skipped: puppeteer-core is not installed (bash scripts/setup.sh runs npm ci in tests/browser)');
  process.exit(SKIP);
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'radiant-browser-'));
const children = [];
let browser = null;
let failures = 0;
function check(ok, what) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures += 1;
}
// Stops a radiant child (Ctrl-C: a trainer saves its snapshot first) and waits for it.
function stopChild(c) {
  if (c.exitCode !== null || c.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => { c.once('exit', resolve); c.kill('SIGINT'); });
}
async function cleanup() {
  if (browser) await browser.close().catch(() => {});
  await Promise.all(children.map(stopChild));
  fs.rmSync(tmp, { recursive: true, force: true });
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Starts radiant with ARGS and resolves with the viewer URL it prints.
function startViewer(args, name) {
  const log = path.join(tmp, name + '.log');
  const child = spawn(radiant, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let text = '';
  const collect = (d) => { text += d; fs.appendFileSync(log, d); };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      const m = text.match(/viewer: (http:\/\/\S+)/);
      if (m) { clearInterval(timer); resolve({ child, url: m[1] }); }
      else if (child.exitCode !== null) { clearInterval(timer); reject(new Error(`radiant ${args.join(' ')} exited: ${text}`)); }
    }, 100);
    setTimeout(() => { clearInterval(timer); reject(new Error('no viewer URL in 120 s: ' + text)); }, 120000);
  });
}

// Statistics of the pixels the page shows: the frame <img> and the overlay <canvas>.
function framePixels(page) {
  return page.evaluate(() => {
    const img = document.getElementById('frame');
    const c = document.createElement('canvas');
    c.width = img.naturalWidth; c.height = img.naturalHeight;
    const ctx = c.getContext('2d');
    ctx.drawImage(img, 0, 0);
    const d = ctx.getImageData(0, 0, c.width, c.height).data;
    let sum = 0, sum2 = 0, n = 0;
    const small = [];
    for (let i = 0; i < d.length; i += 4) {
      const y = (d[i] + d[i + 1] + d[i + 2]) / 3;
      sum += y; sum2 += y * y; n += 1;
    }
    // A 16x16 thumbnail to compare frames taken at different sizes.
    const t = document.createElement('canvas');
    t.width = t.height = 16;
    t.getContext('2d').drawImage(img, 0, 0, 16, 16);
    const td = t.getContext('2d').getImageData(0, 0, 16, 16).data;
    for (let i = 0; i < td.length; i += 4) small.push((td[i] + td[i + 1] + td[i + 2]) / 3);
    const o = document.getElementById('overlay');
    const od = o.getContext('2d').getImageData(0, 0, o.width, o.height).data;
    let drawn = 0;
    for (let i = 3; i < od.length; i += 4) if (od[i] > 0) drawn += 1;
    const mean = sum / n;
    return { w: c.width, h: c.height, mean, std: Math.sqrt(Math.max(0, sum2 / n - mean * mean)), small, overlay: drawn };
  });
}
const thumbDiff = (a, b) => a.small.reduce((s, v, i) => s + Math.abs(v - b.small[i]), 0) / a.small.length;

async function waitFor(page, fn, arg, what, timeout = 60000) {
  try {
    await page.waitForFunction(fn, { timeout, polling: 100 }, arg);
    check(true, what);
    return true;
  } catch (e) {
    check(false, `${what} (waited ${timeout / 1000} s)`);
    return false;
  }
}

async function openPage(url) {
  const page = await browser.newPage();
  await page.setViewport({ width: 900, height: 600 });
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('requestfailed', (r) => {
    // Frames cut short by a newer camera move are aborted on purpose.
    if (!r.url().endsWith('/api/render')) errors.push(`request failed: ${r.url()} ${r.failure()?.errorText}`);
  });
  await page.goto(url, { waitUntil: 'load' });
  return { page, errors };
}

async function snapshotViewer(snapshot) {
  const { child, url } = await startViewer(['view', snapshot, '--port', '0', '--threads', '2'], 'view');
  const { page, errors } = await openPage(url);
  // A refined frame is one at the full size of the view.
  const refinedAfter = (n) => window.radiantViewer.frames() > n &&
    document.getElementById('frame').naturalWidth === document.getElementById('view').clientWidth;
  await waitFor(page, refinedAfter, 0, 'a refined frame is shown');
  const first = await framePixels(page);
  check(first.w >= 500 && first.std > 8, `the frame shows the scene (${first.w}x${first.h}, pixel std ${first.std.toFixed(1)})`);
  check(first.overlay > 500, `training cameras and the box are drawn over it (${first.overlay} pixels)`);
  const camBefore = await page.evaluate(() => window.radiantViewer.camera());

  // Drag across the view: the camera orbits and a new frame arrives.
  const framesBefore = await page.evaluate(() => window.radiantViewer.frames());
  await page.mouse.move(450, 300);
  await page.mouse.down();
  for (let i = 1; i <= 10; ++i) await page.mouse.move(450 + 25 * i, 300 + 3 * i);
  await page.mouse.up();
  const camAfter = await page.evaluate(() => window.radiantViewer.camera());
  const moved = Math.hypot(...[0, 1, 2].map((r) => camAfter[r][3] - camBefore[r][3]));
  check(moved > 0.05, `the drag moved the camera (${moved.toFixed(3)})`);
  await waitFor(page, refinedAfter, framesBefore, 'a new refined frame after the drag');
  const dragged = await framePixels(page);
  check(thumbDiff(first, dragged) > 1, `the frame changed with the camera (mean thumbnail difference ${thumbDiff(first, dragged).toFixed(2)})`);

  // Depth mode renders something else at the same camera.
  const framesRgb = await page.evaluate(() => window.radiantViewer.frames());
  await page.select('#mode', 'depth');
  await waitFor(page, refinedAfter, framesRgb, 'a refined depth frame');
  const depth = await framePixels(page);
  check(thumbDiff(dragged, depth) > 1, `depth mode differs from RGB (${thumbDiff(dragged, depth).toFixed(2)})`);

  // Stepping to the next training camera.
  await page.click('#next');
  const label = await page.$eval('#camera-index', (e) => e.textContent);
  check(/^2 \/ \d+$/.test(label), `next camera button steps to camera 2 (${label})`);

  check(errors.length === 0, `no console errors${errors.length ? ': ' + errors.join(' | ') : ''}`);
  await page.close();
  await stopChild(child);
}

async function trainingViewer(sceneJson) {
  const live = path.join(tmp, 'live.radiant');
  const { url } = await startViewer(['train', sceneJson, '--steps', '1000000', '--target-samples', '16384',
                                     '--checkpoint-every', '0', '--snapshot', live, '--view', '--port', '0'], 'train');
  const { page, errors } = await openPage(url);
  const stepOf = () => page.$eval('#train-status', (e) => { const m = e.textContent.match(/step (\d+)/); return m ? +m[1] : -1; });
  await waitFor(page, () => /training · step \d+/.test(document.getElementById('train-status').textContent), null,
                'the training panel shows the trainer');
  const s1 = await stepOf();
  await sleep(2500);
  const s2 = await stepOf();
  check(s1 >= 0 && s2 > s1, `the panel's step rises while training (${s1} -> ${s2})`);
  await waitFor(page, () => {
    const c = document.getElementById('curve');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    for (let i = 3; i < d.length; i += 4) if (d[i] > 0) return true;
    return false;
  }, null, 'the loss curve is drawn');
  await page.click('#pause');
  await waitFor(page, () => /paused/.test(document.getElementById('train-status').textContent), null, 'Pause shows paused');
  const p1 = await stepOf();
  await sleep(2000);
  const p2 = await stepOf();
  check(p1 === p2, `no steps while paused (${p1} -> ${p2})`);
  await page.click('#resume');
  await waitFor(page, (p) => { const m = document.getElementById('train-status').textContent.match(/training · step (\d+)/); return m && +m[1] > p; },
                p2, 'Resume continues the steps');
  check(errors.length === 0, `no console errors${errors.length ? ': ' + errors.join(' | ') : ''}`);
  await page.close();
}

try {
  // A small trained model of the built-in scene (`radiant demo` writes both).
  const demo = spawnSync(radiant, ['demo', '--out-dir', path.join(tmp, 'demo'), '--steps', '200', '--orbit', '1'],
                         { encoding: 'utf8' });
  if (demo.status !== 0) throw new Error('radiant demo failed: ' + demo.stderr);
  try {
    browser = await puppeteer.launch({
      executablePath: chromiumPath,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
             '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
      userDataDir: path.join(tmp, 'chromium-profile'),
    });
  } catch (e) {
    console.log(`skipped: Chromium at ${chromiumPath} did not start: ${e.message.split('\n')[0]}`);
    await cleanup();
    process.exit(SKIP);
  }
  await snapshotViewer(path.join(tmp, 'demo', 'demo.radiant'));
  await trainingViewer(path.join(tmp, 'demo', 'scene', 'transforms_train.json'));
} catch (e) {
  check(false, e.stack || String(e));
}
await cleanup();
console.log(failures ? `${failures} check(s) failed` : 'all browser checks passed');
process.exit(failures ? 1 : 0);
