// How long the page takes to read a large file, and what its frames do meanwhile: a measurement, not a test
// (docs/web.md, "Long work in a page"; docs/performance.md). Opens the page in Debian's headless Chromium,
// picks FILE through File > Open keys… (Ctrl+O and the browser's file chooser, as a user does), and prints the
// time from the pick to the chart of its keys, with the gaps between the page's animation frames meanwhile.
//
//   node tests/web/load-bench.mjs URL FILE EXPECTED_SUMMARY_TEXT

import puppeteer from "puppeteer-core";

const [url, file, expected] = process.argv.slice(2);
if (!url || !file || !expected) {
  console.error("usage: node load-bench.mjs URL FILE EXPECTED_SUMMARY_TEXT");
  process.exit(2);
}
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--disable-background-networking"],
});
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 800 });
  await page.goto(url, { waitUntil: "load" });
  await page.waitForFunction(() => !document.getElementById("shardlens_status"), { timeout: 60_000 });
  // Every animation frame's time, from now on.
  await page.evaluate(() => {
    window.__frames = [];
    const tick = (t) => {
      window.__frames.push(t);
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  await page.click("#shardlens_canvas");
  const [chooser] = await Promise.all([
    page.waitForFileChooser({ timeout: 30_000 }),
    page.keyboard.down("Control").then(() => page.keyboard.press("o")).then(() => page.keyboard.up("Control")),
  ]);
  const picked = await page.evaluate(() => performance.now());
  await chooser.accept([file]);
  await page.waitForFunction(
    (text) => (document.getElementById("shardlens_summary")?.textContent || "").includes(text),
    { timeout: 600_000, polling: 200 },
    expected,
  );
  const done = await page.evaluate(() => performance.now());
  const frames = await page.evaluate((from) => window.__frames.filter((t) => t >= from), picked);
  const gaps = frames.slice(1).map((t, i) => t - frames[i]).sort((a, b) => a - b);
  const q = (p) => (gaps.length ? gaps[Math.min(gaps.length - 1, Math.floor(p * gaps.length))] : NaN);
  console.log(`load: ${((done - picked) / 1000).toFixed(2)} s from the pick to the chart`);
  console.log(
    `frames meanwhile: ${frames.length}; gap p50 ${q(0.5).toFixed(1)} ms, p99 ${q(0.99).toFixed(1)} ms, max ${(gaps.at(-1) ?? NaN).toFixed(0)} ms`,
  );
  console.log(`the page says: ${await page.$eval("#shardlens_summary", (e) => e.textContent)}`);
} finally {
  await browser.close();
}
