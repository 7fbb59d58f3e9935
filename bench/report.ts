/**
 * Prints a results file as Markdown tables (for BENCHMARKS.md):
 *
 *   node --experimental-strip-types bench/report.ts [bench/results/<run>.json ...]
 *
 * No file: the newest full run in bench/results/.
 * Several files: their sections are printed in order, later files adding
 * the sections (or figures) the earlier ones lack.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const files = process.argv.slice(2);
if (files.length === 0) {
  const dir = path.join(import.meta.dirname, "results");
  // Names end in the run's start time, so the newest sorts last among runs of one kind.
  const newest = readdirSync(dir)
    .filter((name) => /^full-\d{4}-.*\.json$/.test(name))
    .sort()
    .at(-1);
  if (!newest) throw new Error(`no full run in ${dir}: give a results file`);
  files.push(path.join(dir, newest));
}

type Figure = { median: number; min: number; max: number; n: number; unit: string } | { value: number; unit: string };

const num = (x: number) => (Math.abs(x) >= 100 ? x.toLocaleString("en", { maximumFractionDigits: 0 }) : String(x));

for (const file of files) {
  const report = JSON.parse(readFileSync(file, "utf8"));
  const m = report.machine;
  console.log(`### ${path.basename(file)}: \`${report.command}\`, ${report.startedAt}, ${report.durationS} s\n`);
  console.log(
    `Machine: ${m.nproc} cores (${m.cpuModel}), ${m.memTotalGiB} GiB, kernel ${m.kernel}; node ${m.node}; app workerd ${m.workerdApp}, wrangler's workerd ${m.workerdWrangler}; vite ${m.vite}, @cloudflare/vite-plugin ${m.cloudflareVitePlugin}, wrangler ${m.wrangler}, agents ${m.agents}, @cloudflare/ai-chat ${m.aiChat}; commit ${m.gitCommit}${m.gitDirty ? " (src modified)" : ""}.\n`
  );
  for (const [key, section] of Object.entries<any>(report.sections)) {
    console.log(
      `#### ${section.title} (\`${key}\`, ${Math.round(section.durationMs / 1000)} s, 1-min load average ${section.loadavg.before.toFixed(1)} → ${section.loadavg.after.toFixed(1)})\n`
    );
    if (section.error) console.log(`**FAILED:** ${String(section.error).split("\n")[0]}\n`);
    console.log("| figure | median | min | max | n |\n| --- | ---: | ---: | ---: | ---: |");
    for (const [name, f] of Object.entries<Figure>(section.figures)) {
      if ("median" in f)
        console.log(`| ${name} | **${num(f.median)} ${f.unit}** | ${num(f.min)} | ${num(f.max)} | ${f.n} |`);
      else console.log(`| ${name} | **${num(f.value)} ${f.unit}** | | | 1 |`);
    }
    console.log("");
    for (const s of section.skipped) console.log(`- Skipped: ${s}`);
    if (section.skipped.length) console.log("");
  }
}
