// The page's end-to-end test, in a real browser: Debian's Chromium, headless, driven by puppeteer-core
// (never a downloaded browser). Run by tests/web.sh, which builds the site and serves it.
//
//   node tests/web/e2e.mjs URL OUT_DIR [PLAIN_URL]
//
// URL is the served index.html, served cross-origin isolated (scripts/serve.py); PLAIN_URL, if given, the same
// page from a server that sends no headers (as GitHub Pages), where web/sw.js has to isolate it; screenshots
// go to OUT_DIR. Every check prints one line; the first failure
// ends the run with exit code 1. What the page shows is read from its chart in words (#shardlens_summary,
// what screen readers hear), never from pixels, except where pixels are the point (a CJK key is drawn).

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { deflateRawSync } from "node:zlib";
import puppeteer from "puppeteer-core";

const [url, outDir, plainUrl] = process.argv.slice(2);
if (!url || !outDir) {
  console.error("usage: node e2e.mjs URL OUT_DIR");
  process.exit(2);
}
const chromium = process.env.CHROMIUM || "/usr/bin/chromium";
const fixtures = resolve(dirname(fileURLToPath(import.meta.url)), "../fixtures");
const TIMEOUT = 60_000;

/** A share link made here, independently of shardlens's encoder: the session JSON, raw DEFLATE, base64url. */
function link(text, settings = {}) {
  const session = { format: "shardlens-session", version: 1, settings: { buckets: 8, ...settings }, text };
  const data = deflateRawSync(Buffer.from(JSON.stringify(session))).toString("base64url");
  return `${url}#shardlens1=${data}`;
}

const HOT = "celebrity\n".repeat(60) + Array.from({ length: 40 }, (_, i) => `fan-${i}`).join("\n") + "\n";
const UNIFORM = Array.from({ length: 400 }, (_, i) => `USER#${i}`).join("\n") + "\n";

let failed = false;
function check(ok, what, detail = "") {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}${detail ? `: ${detail}` : ""}`);
  if (!ok) failed = true;
  return ok;
}

async function summary(page) {
  return page.$eval("#shardlens_summary", (e) => e.textContent || "");
}

/** Opens `address` in a fresh profile (no remembered keys) at `width`×`height`; returns the page and errors. */
async function open(browser, address, width, height) {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  const errors = [];
  const fetched = [];
  page.on("response", (r) => fetched.push(`${r.status()} ${new URL(r.url()).pathname}`));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.setViewport({ width, height });
  const started = performance.now();
  await page.goto(address, { waitUntil: "load", timeout: TIMEOUT });
  // The status line goes once the app has drawn its first frame; the chart in words follows.
  await page.waitForFunction(() => !document.getElementById("shardlens_status"), { timeout: TIMEOUT });
  const firstPaint = performance.now() - started;
  await page.waitForFunction(() => (document.getElementById("shardlens_summary")?.textContent || "") !== "", {
    timeout: TIMEOUT,
  });
  return { page, context, errors, firstPaint, fetched };
}

async function waitForSummary(page, test, what) {
  try {
    await page.waitForFunction(test, { timeout: TIMEOUT });
    return true;
  } catch {
    return check(false, what, `the page says: ${await summary(page)}`);
  }
}

const profile = mkdtempSync(join(tmpdir(), "shardlens-chromium-"));
const browser = await puppeteer.launch({
  executablePath: chromium,
  headless: true,
  args: [
    "--no-sandbox",
    "--use-angle=swiftshader",
    "--enable-unsafe-swiftshader",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    `--user-data-dir=${profile}`,
  ],
});
try {
  // 1. The page draws, with no console error, at the two sizes a classroom sees; it is cross-origin isolated,
  // so its long work runs on workers.
  for (const [w, h] of [[1280, 800], [1024, 768]]) {
    const { page, context, errors, firstPaint, fetched } = await open(browser, url, w, h);
    check(await page.evaluate(() => self.crossOriginIsolated), `${w}x${h}: the page is cross-origin isolated`);
    check(errors.length === 0, `${w}x${h}: no console error`, errors.join(" | "));
    check(!fetched.some((f) => f.includes("/fonts/")), `${w}x${h}: no font fetched for Latin keys`, fetched.join(", "));
    check(true, `${w}x${h}: first paint`, `${(firstPaint / 1000).toFixed(2)} s`);
    check((await summary(page)).includes("buckets"), `${w}x${h}: the chart is drawn`, await summary(page));
    await page.screenshot({ path: join(outDir, `page-${w}x${h}.png`) });
    await context.close();
  }

  // 2. A share link of a hot key set shows the hot key; a uniform set does not.
  {
    const { page, context, errors } = await open(browser, link(HOT), 1280, 800);
    if (await waitForSummary(page, () => document.getElementById("shardlens_summary").textContent.includes("hot: celebrity"), "a hot link shows its hot key")) {
      check(true, "a hot link shows its hot key", await summary(page));
    }
    check(errors.length === 0, "the hot link: no console error", errors.join(" | "));
    await page.screenshot({ path: join(outDir, "link-hot.png") });
    await context.close();
  }
  {
    const { page, context } = await open(browser, link(UNIFORM), 1280, 800);
    if (await waitForSummary(page, () => document.getElementById("shardlens_summary").textContent.includes("400 keys"), "a uniform link opens its 400 keys")) {
      const said = await summary(page);
      check(said.includes("no hot key"), "a uniform link shows no hot key", said);
    }
    await context.close();
  }

  // 3. A file dropped on the page is read in the page and analysed.
  {
    const { page, context, errors } = await open(browser, url, 1280, 800);
    const lines = Array.from({ length: 1000 }, (_, i) => `ORDER#${i % 250}`).join("\n") + "\n";
    await page.evaluate((text) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([text], "orders.txt", { type: "text/plain" }));
      const canvas = document.getElementById("shardlens_canvas");
      for (const type of ["dragenter", "dragover", "drop"]) {
        canvas.dispatchEvent(new DragEvent(type, { dataTransfer: transfer, bubbles: true, cancelable: true }));
      }
    }, lines);
    if (await waitForSummary(page, () => document.getElementById("shardlens_summary").textContent.includes("250 keys"), "a dropped file is analysed")) {
      check(true, "a dropped file is analysed", await summary(page));
    }
    check(errors.length === 0, "the drop: no console error", errors.join(" | "));
    await page.screenshot({ path: join(outDir, "dropped.png") });
    await context.close();
  }
  // 3a. Several files picked together read as one key set; an S3 export folder picked with File > Open S3
  // export folder… (the browser's folder picker) reads as the export, with its data files as groups. The
  // counts are the CLI's for the same inputs (`shardlens analyze keys.txt items.json`, `… export`).
  {
    const { page, context, errors } = await open(browser, url, 1280, 800);
    await page.click("#shardlens_canvas");
    let [chooser] = await Promise.all([
      page.waitForFileChooser({ timeout: TIMEOUT }),
      page.keyboard.down("Control").then(() => page.keyboard.press("o")).then(() => page.keyboard.up("Control")),
    ]);
    check(chooser.isMultiple(), "File > Open keys… takes several files");
    await chooser.accept([join(fixtures, "keys.txt"), join(fixtures, "items.json")]);
    if (await waitForSummary(page, () => document.getElementById("shardlens_summary").textContent.includes("6 keys · 12 writes"), "two files picked together")) {
      check(true, "two files picked together read as one key set", await summary(page));
    }
    // File (top left), then its second entry, Open S3 export folder… (the menu's rows at 1280×800).
    await page.mouse.click(20, 10);
    await page.waitForFunction(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true)))));
    [chooser] = await Promise.all([page.waitForFileChooser({ timeout: TIMEOUT }), page.mouse.click(85, 62)]);
    await chooser.accept([join(fixtures, "export")]);
    if (await waitForSummary(page, () => document.getElementById("shardlens_summary").textContent.includes("3 keys · 5 items"), "an export folder picked")) {
      check(true, "an S3 export folder picked in the page reads as the export", await summary(page));
    }
    check(errors.length === 0, "several files and a folder: no console error", errors.join(" | "));
    await page.screenshot({ path: join(outDir, "export-folder.png") });
    await context.close();
  }

  // 3b. A large file (66 MB): the page keeps drawing while a worker reads it, and says how far it is. 3c: the
  // status line's Cancel stops such a load and the keys shown stay.
  for (const cancel of [false, true]) {
    const { page, context, errors } = await open(browser, url, 1280, 800);
    const before = await summary(page);
    await page.evaluate(() => {
      window.__progress = new Set();
      const bar = document.getElementById("shardlens_progress");
      new MutationObserver(() => {
        const said = bar.getAttribute("aria-valuetext");
        if (said) window.__progress.add(said);
      }).observe(bar, { attributes: true });
      // 600,000 DynamoDB JSON items (66 MB): 30 % to USER#hot, the rest over 35,000 other users.
      const lines = [];
      for (let i = 0; i < 600_000; i++) {
        const user = i % 10 < 3 ? "USER#hot" : `USER#${i % 50_000}`;
        lines.push(`{"Item":{"pk":{"S":"${user}"},"sk":{"S":"ORDER#${i}"},"total":{"N":"${i % 997}"},"note":{"S":"${"x".repeat(i % 40)}"}}}`);
      }
      const transfer = new DataTransfer();
      transfer.items.add(new File([lines.join("\n") + "\n"], "orders.json", { type: "application/json" }));
      const canvas = document.getElementById("shardlens_canvas");
      for (const type of ["dragenter", "dragover", "drop"]) {
        canvas.dispatchEvent(new DragEvent(type, { dataTransfer: transfer, bubbles: true, cancelable: true }));
      }
    });
    if (cancel) {
      // The status line: the progress bar (360 px from the left edge), then Cancel.
      await page.waitForFunction(() => (document.getElementById("shardlens_progress").getAttribute("aria-valuetext") || "").includes("MB of"), { timeout: TIMEOUT, polling: 10 });
      await page.mouse.click(403, 788);
      await page.waitForFunction(() => !document.getElementById("shardlens_progress").getAttribute("aria-valuetext"), { timeout: TIMEOUT });
      check((await summary(page)) === before, "Cancel stops a worker's load and the keys shown stay", await summary(page));
      await page.screenshot({ path: join(outDir, "load-cancelled.png") });
    } else {
      if (await waitForSummary(page, () => document.getElementById("shardlens_summary").textContent.includes("35,001 keys · 600,000 items"), "a 66 MB file is analysed")) {
        check((await summary(page)).includes("hot: USER#hot"), "a 66 MB file is analysed", await summary(page));
      }
      const said = await page.evaluate(() => [...window.__progress]);
      check(said.length >= 2, "the page drew the load's progress while a worker read it", `${said.length} steps: ${said.slice(0, 3).join(" | ")}`);
    }
    check(errors.length === 0, `the large file${cancel ? ", cancelled" : ""}: no console error`, errors.join(" | "));
    await context.close();
  }

  // 4. The article widget, at an iframe's two sizes, on a hot link.
  for (const [w, h] of [[720, 480], [400, 600]]) {
    const address = link(HOT).replace("index.html#", "index.html?embed#");
    const { page, context, errors } = await open(browser, address, w, h);
    if (await waitForSummary(page, () => document.getElementById("shardlens_summary").textContent.includes("hot: celebrity"), `the widget at ${w}x${h} shows the hot key`)) {
      check(true, `the widget at ${w}x${h} shows the hot key`, await summary(page));
    }
    check(errors.length === 0, `the widget at ${w}x${h}: no console error`, errors.join(" | "));
    await page.screenshot({ path: join(outDir, `embed-${w}x${h}.png`) });
    await context.close();
  }

  // 4b. The widget in another site's iframe: not cross-origin isolated there, so no workers; it still works.
  {
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.setViewport({ width: 800, height: 560 });
    const address = link(HOT).replace("index.html#", "index.html?embed#");
    await page.setContent(`<p>An article</p><iframe src="${address}" width="720" height="480"></iframe>`);
    let frame;
    for (let i = 0; i < 600 && !frame; i++) {
      frame = page.frames().find((f) => f.url().includes("embed"));
      if (!frame) await new Promise((r) => setTimeout(r, 100));
    }
    try {
      await frame.waitForFunction(() => (document.getElementById("shardlens_summary")?.textContent || "").includes("hot: celebrity"), { timeout: TIMEOUT });
      check(!(await frame.evaluate(() => self.crossOriginIsolated)), "the widget in an iframe shows the hot key without workers", await frame.$eval("#shardlens_summary", (e) => e.textContent));
    } catch (e) {
      check(false, "the widget in an iframe shows the hot key without workers", String(e));
    }
    check(errors.length === 0, "the widget in an iframe: no error", errors.join(" | "));
    await page.screenshot({ path: join(outDir, "embed-in-article.png") });
    await context.close();
  }

  // 4c. A host that sends no headers (GitHub Pages): web/sw.js isolates the page, which loads once more.
  if (plainUrl) {
    const { page, context, errors } = await open(browser, plainUrl, 1280, 800);
    check(await page.evaluate(() => self.crossOriginIsolated), "a page from a host without headers is isolated by its service worker");
    check(errors.length === 0, "the page under its service worker: no console error", errors.join(" | "));
    await context.close();
  }

  // 5. CJK keys: the page fetches the font served beside it (only now) and draws them with it.
  {
    const keys = "東京\n".repeat(150) + "大阪\n京都\n서울\nさっぽろ\n".repeat(10);
    const { page, context, errors, fetched } = await open(browser, link(keys), 1280, 800);
    try {
      await page.waitForFunction(() => (document.documentElement.dataset.fonts || "").split(" ").includes("cjk"), { timeout: TIMEOUT });
      const font = fetched.find((f) => f.includes("/fonts/wqy-microhei.ttc"));
      check(font?.startsWith("200"), "CJK keys fetch the font beside the page", font || fetched.join(", "));
    } catch {
      check(false, "CJK keys fetch the font beside the page", fetched.join(", "));
    }
    check((await summary(page)).includes("hot: 東京"), "a CJK hot key is named", await summary(page));
    check(errors.length === 0, "CJK keys: no console error", errors.join(" | "));
    await page.screenshot({ path: join(outDir, "cjk.png") });
    await context.close();
  }
  // 5b. Emoji keys: egui's own emoji font lacks 🙂, so the page fetches Symbola (only now) and draws them.
  {
    const keys = "🙂\n".repeat(120) + "🚀\n🍕\n🐍\n🎉\n".repeat(10);
    const { page, context, errors, fetched } = await open(browser, link(keys), 1280, 800);
    try {
      await page.waitForFunction(() => (document.documentElement.dataset.fonts || "").split(" ").includes("emoji"), { timeout: TIMEOUT });
      const font = fetched.find((f) => f.includes("/fonts/Symbola_hint.ttf"));
      check(font?.startsWith("200"), "emoji keys fetch the emoji font beside the page", font || fetched.join(", "));
    } catch {
      check(false, "emoji keys fetch the emoji font beside the page", fetched.join(", "));
    }
    check(!fetched.some((f) => f.includes("wqy")), "emoji keys do not fetch the CJK font", fetched.join(", "));
    check((await summary(page)).includes("hot: 🙂"), "an emoji hot key is named", await summary(page));
    check(errors.length === 0, "emoji keys: no console error", errors.join(" | "));
    await page.screenshot({ path: join(outDir, "emoji.png") });
    await context.close();
  }
} finally {
  await browser.close();
  rmSync(profile, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
