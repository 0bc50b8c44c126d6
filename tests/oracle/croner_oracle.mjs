// SPDX-License-Identifier: MIT
/* Answer the differential cases with croner (npm, version pinned by
 * package-lock.json).
 *
 * Reads the cases of gen_cases.py on stdin and writes, per case,
 *
 *     ID  RENDERED  RESULT
 *
 * RENDERED is the expression in croner's dialect; RESULT is the next N
 * occurrences in UTC RFC 3339 separated by spaces ("NONE" after the last
 * one when the search stops early), or "REJECT <message>" when croner
 * refuses the expression or the zone.
 *
 * Rendering keeps the meaning and changes only the spelling: "a/n" becomes
 * "a-max/n" (croner refuses a numeric step prefix unless sloppyRanges is
 * set), and a weekday range ending on Sunday written "a-0" becomes "a-7".
 * Day of month and day of week combine with OR (domAndDow: false), the
 * Vixie rule SPEC 2.1 follows. Zones come from the ICU data built into
 * Node, not from the system tz database. */
import { createInterface } from 'node:readline';
import { Cron } from './node_modules/croner/dist/croner.js';

/* The maximum of each field, 5-field order: minute .. day-of-week. */
const FIELD_MAX = [59, 23, 31, 12, 7];

function renderItem(item, max, isDow) {
    const startStep = /^(\w+)\/(\d+)$/.exec(item);
    if (startStep && startStep[1] !== '*')
        return `${startStep[1]}-${max}/${startStep[2]}`;
    const toSunday = /^(\w+)-0$/.exec(item);
    if (isDow && toSunday && !/^(0|sun)$/i.test(toSunday[1]))
        return `${toSunday[1]}-7`;
    return item;
}

function render(expr) {
    if (expr.startsWith('@'))
        return expr;
    const fields = expr.split(' ');
    if (fields.length !== 5 && fields.length !== 6)
        return expr;
    const first = fields.length - 5;
    return fields.map((field, i) => {
        const max = i < first ? 59 : FIELD_MAX[i - first];
        const isDow = i - first === 4;
        return field.split(',').map(it => renderItem(it, max, isDow)).join(',');
    }).join(' ');
}

function rfc3339(date) {
    return date.toISOString().replace('.000Z', 'Z');
}

function occurrences(job, after, count) {
    const found = [];
    let t = new Date(after);
    for (let i = 0; i < count; i++) {
        const next = job.nextRun(t);
        if (next === null) {
            found.push('NONE');
            break;
        }
        found.push(rfc3339(next));
        t = next;
    }
    return found.join(' ');
}

function answer(line) {
    const [id, , expr, zone, after, count] = line.split('\t');
    const rendered = render(expr);
    let job;
    try {
        job = new Cron(rendered, { timezone: zone, paused: true,
                                   domAndDow: false });
        return `${id}\t${rendered}\t${occurrences(job, after, Number(count))}`;
    } catch (e) {
        const msg = String(e.message).replace(/\s+/g, ' ').slice(0, 80);
        return `${id}\t${rendered}\tREJECT ${msg}`;
    } finally {
        if (job)
            job.stop();
    }
}

const out = [];
for await (const line of createInterface({ input: process.stdin })) {
    if (line.trim() !== '')
        out.push(answer(line));
}
process.stdout.write(out.join('\n') + '\n');
