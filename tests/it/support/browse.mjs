// Reads web pages in headless Chromium (Debian's, driven by playwright-core
// over the DevTools protocol) and reports what a screen reader, a keyboard
// and a phone with large text meet there, as JSON for tests/it/
// accessibility.rs to judge. scripts/stack.sh installs playwright-core and
// axe-core into ~/.cache/dopis/node (NODE_PATH points there).
//
// Input (argv[2], JSON): { chromium, profile, axe, pages: [{ name, url, lang }],
//   forms: [{ name, url }] }
// Output (stdout, JSON): one report per page and width:
//   { name, lang, width, status, htmlLang, violations: [{ id, impact, help, targets }],
//     overflow: { base, large }, text, focus: { stops, focusable, skipFirst, invisible },
//     board: { fen, caption, label, moves, tableMoves } | null,
//     headers: { tables, unscoped } }
// and one per form: { name, form: true, reached, after: { url, status, method, buttons, lang } }

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
const require = createRequire(process.env.NODE_PATH + "/");
const { chromium } = require("playwright-core");

const input = JSON.parse(readFileSync(process.argv[2], "utf8"));
const axeSource = readFileSync(input.axe, "utf8");

const WIDTHS = [
  { width: 1280, height: 900, name: "desktop" },
  { width: 390, height: 844, name: "phone" },
];

const context = await chromium.launchPersistentContext(input.profile, {
  executablePath: input.chromium,
  headless: true,
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
  ],
});

const reports = [];
try {
  const page = await context.newPage();
  for (const p of input.pages) {
    for (const w of WIDTHS) {
      await page.setViewportSize({ width: w.width, height: w.height });
      const response = await page.goto(p.url, { waitUntil: "load" });
      const report = { name: p.name, lang: p.lang, width: w.name, status: response ? response.status() : null };
      report.htmlLang = await page.evaluate(() => document.documentElement.lang);
      await page.evaluate(axeSource);
      const axe = await page.evaluate(async () => {
        const r = await window.axe.run(document, {
          runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"] },
          resultTypes: ["violations"],
        });
        return r.violations.map((v) => ({
          id: v.id,
          impact: v.impact,
          help: v.help,
          targets: v.nodes.slice(0, 5).map((n) => n.target.join(" ") + " :: " + (n.failureSummary || "").split("\n").slice(1, 2).join("")),
        }));
      });
      report.violations = axe;
      // Sideways scrolling of the page itself (tables scroll in their own
      // box), at the reader's size and at 200% text.
      const overflow = () =>
        page.evaluate(() => {
          const doc = document.documentElement;
          const over = doc.scrollWidth - window.innerWidth;
          if (over <= 1) return null;
          // What sticks out: outside the tables' own scrolling boxes, or
          // positioned out of them.
          const wide = [...document.querySelectorAll("body *")]
            .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
            .filter((e) => !e.closest(".scroll") || getComputedStyle(e).position === "absolute")
            .slice(0, 5)
            .map((e) => e.tagName.toLowerCase() + (e.className ? "." + e.className : ""));
          return { over, wide };
        });
      report.overflow = { base: await overflow() };
      await page.evaluate(() => {
        document.documentElement.style.fontSize = "200%";
      });
      report.overflow.large = await overflow();
      report.largeViolations = (
        await page.evaluate(async () => {
          const r = await window.axe.run(document, {
            runOnly: { type: "rule", values: ["color-contrast", "scrollable-region-focusable", "target-size"] },
            resultTypes: ["violations"],
          });
          return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 5).map((n) => n.target.join(" ")) }));
        })
      );
      await page.evaluate(() => {
        document.documentElement.style.fontSize = "";
      });
      if (w.name === "desktop") {
        report.board = await page.evaluate(() => {
          const figure = document.querySelector("figure.board");
          if (!figure) return null;
          const img = figure.querySelector("[role=img]");
          const caption = figure.querySelector("figcaption");
          const moves = [...document.querySelectorAll("table.moves .san")].map((e) => e.textContent.trim());
          return {
            fen: figure.dataset.fen,
            label: img ? img.getAttribute("aria-label") : null,
            caption: caption ? caption.textContent.replace(/\s+/g, " ").trim() : null,
            tableMoves: moves,
          };
        });
        report.headers = await page.evaluate(() => {
          const tables = [...document.querySelectorAll("table")];
          return {
            tables: tables.length,
            withoutHeaders: tables.filter((t) => !t.querySelector("th")).length,
            unscoped: [...document.querySelectorAll("thead th")].filter((th) => !th.getAttribute("scope")).length,
          };
        });
        // The keyboard: Tab from the top through the page; each stop must
        // show where it is, and every link and button must be reached.
        report.focus = await walkByKeyboard(page);
        // The words a reader reads, less what is another language on
        // purpose (the language switch), code (commands, FEN) and the
        // board's drawing.
        report.text = await page.evaluate((lang) => {
          const clone = document.body.cloneNode(true);
          clone.querySelectorAll(`[lang]:not([lang="${lang}"]), code, svg, script, style`).forEach((e) => e.remove());
          document.body.replaceWith(clone);
          const text = document.body.innerText;
          return text;
        }, p.lang);
      }
      reports.push(report);
    }
  }
  // An action by keyboard alone: the pages given as forms are submitted by
  // Tab and Enter (the unsubscribe page's button), and the page after is
  // reported.
  for (const f of input.forms || []) {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(f.url, { waitUntil: "load" });
    let reached = false;
    for (let i = 0; i < 40 && !reached; i++) {
      await page.keyboard.press("Tab");
      reached = await page.evaluate(() => document.activeElement && document.activeElement.tagName === "BUTTON");
    }
    let after = null;
    if (reached) {
      const [response] = await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.keyboard.press("Enter")]);
      after = {
        url: page.url(),
        status: response ? response.status() : null,
        method: response ? response.request().method() : null,
        buttons: await page.evaluate(() => document.querySelectorAll("button").length),
        lang: await page.evaluate(() => document.documentElement.lang),
      };
    }
    reports.push({ name: f.name, form: true, reached, after });
  }
} finally {
  await context.close();
}
process.stdout.write(JSON.stringify(reports));

async function walkByKeyboard(page) {
  const focusable = await page.evaluate(() =>
    [...document.querySelectorAll("a[href], button, input, select, textarea, [tabindex]:not([tabindex='-1'])")]
      .filter((e) => !e.disabled && e.getClientRects().length > 0).length,
  );
  await page.evaluate(() => {
    window.scrollTo(0, 0);
    document.activeElement && document.activeElement.blur();
  });
  const seen = new Set();
  const invisible = [];
  let skipFirst = false;
  for (let i = 0; i < focusable + 5; i++) {
    await page.keyboard.press("Tab");
    const stop = await page.evaluate(() => {
      const e = document.activeElement;
      if (!e || e === document.body) return null;
      const r = e.getBoundingClientRect();
      const style = getComputedStyle(e);
      const shown = style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0;
      const path = [];
      for (let n = e; n && n !== document.body; n = n.parentElement) {
        path.unshift(n.tagName.toLowerCase() + ":" + [...n.parentElement.children].indexOf(n));
      }
      return {
        key: path.join("/"),
        skip: e.classList.contains("skip"),
        visible: r.width > 0 && r.height > 0 && r.bottom > 0 && r.right > 0 && r.left < window.innerWidth,
        outlined: shown,
        label: (e.textContent || "").trim().slice(0, 40),
      };
    });
    if (!stop) break;
    if (i === 0) skipFirst = stop.skip;
    if (!stop.visible || !stop.outlined) invisible.push(stop.label || stop.key);
    if (seen.has(stop.key)) break;
    seen.add(stop.key);
  }
  return { stops: seen.size, focusable, skipFirst, invisible };
}
