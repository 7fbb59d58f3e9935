/**
 * Before/after table of two or more pairs of results files (for BENCHMARKS.md):
 *
 *   node --experimental-strip-types bench/compare.ts before-relay.json after-relay.json [before-x.json after-x.json …]
 *
 * Every figure both files of a pair hold, with median (min–max) and the
 * after/before ratio of the medians; each section's load average is shown,
 * since the machine's other work moves absolute times.
 */
import { readFileSync } from "node:fs";

type Figure = { median: number; min: number; max: number; n: number; unit: string } | { value: number; unit: string };

const files = process.argv.slice(2);
if (files.length < 2 || files.length % 2) throw new Error("give pairs: before.json after.json …");
const num = (x: number) =>
  Math.abs(x) >= 100 ? x.toLocaleString("en", { maximumFractionDigits: 0 }) : String(Number(x.toFixed(2)));
const show = (f: Figure | undefined) =>
  !f
    ? "—"
    : "median" in f
      ? `${num(f.median)} ${f.unit} (${num(f.min)}–${num(f.max)}, n=${f.n})`
      : `${num(f.value)} ${f.unit}`;
const mid = (f: Figure) => ("median" in f ? f.median : f.value);

for (let i = 0; i < files.length; i += 2) {
  const before = JSON.parse(readFileSync(files[i], "utf8"));
  const after = JSON.parse(readFileSync(files[i + 1], "utf8"));
  for (const [key, a] of Object.entries<any>(after.sections)) {
    const b = before.sections[key];
    if (!b) continue;
    console.log(
      `#### ${a.title}: before ${before.machine.gitCommit} (load ${b.loadavg.before.toFixed(1)} → ${b.loadavg.after.toFixed(1)}), after ${after.machine.gitCommit} (load ${a.loadavg.before.toFixed(1)} → ${a.loadavg.after.toFixed(1)})\n`
    );
    if (b.error) console.log(`Before FAILED: ${String(b.error).split("\n")[0]}\n`);
    if (a.error) console.log(`After FAILED: ${String(a.error).split("\n")[0]}\n`);
    console.log("| figure | before | after | after ÷ before |\n| --- | ---: | ---: | ---: |");
    const names = [...new Set([...Object.keys(b.figures), ...Object.keys(a.figures)])];
    for (const name of names) {
      const fb: Figure | undefined = b.figures[name];
      const fa: Figure | undefined = a.figures[name];
      const ratio = fb && fa && mid(fb) !== 0 ? (mid(fa) / mid(fb)).toFixed(2) : "";
      console.log(`| ${name} | ${show(fb)} | ${show(fa)} | ${ratio} |`);
    }
    console.log("");
  }
}
