// SPDX-License-Identifier: MIT
// Calendars in the dashboard, on a server with two calendars made through
// the API: "us-holidays" (Christmas and New Year's Day by RRULE, observed
// on the nearest weekday) and "office" (it includes us-holidays, plus the
// date 2027-08-18, a Wednesday; its business weekdays Sunday to Thursday).
//
// 1. #/calendars, reached from the navigation: one row per calendar with
//    its description, its source, how many dates, rules and includes it
//    has, its observed rule and its business weekdays.
// 2. A calendar's page: its rules, and the calendars that include it as
//    links; the year view of the current year, twelve month tables each
//    named by its caption with a column header per weekday; "Next year"
//    shows 2027 (kept in the address, and after a reload), where
//    2027-12-25, a Saturday, is a holiday, 2027-12-24 the observed
//    holiday, 2027-12-31 observed too (New Year's Day 2028 is a Saturday:
//    a day past the year read with it), a Wednesday a business day and a
//    Sunday a weekend day, each day's kind said by its aria-label. Every
//    day of the year is shown as the API's days say: in the set (holiday
//    or observed) exactly when GET .../days lists it, a business day
//    exactly when GET .../days?business=true does. "Previous year" twice
//    shows 2025, whose grids differ (2025-12-24, a Wednesday, is a
//    business day there).
// 3. office's page: its include links to us-holidays' page; 2027-08-18 is
//    a holiday there and a business day in us-holidays; its Sundays are
//    business days and its Fridays weekend days, as its weekdays say.
// 4. A change of the calendar through the API (a date added) shows on its
//    open page without a reload.
// 5. The first and last years of the range (1970, 2200) are drawn, with
//    no year before or after them to go to.
// 6. An unknown calendar's page says there is none.
// No console error or uncaught exception on any page.
import {
  playwright, startServer, launch, watch, noErrors, check, step, finish, eventually,
} from "./lib.mjs";

const pw = await playwright();
const server = await startServer({});
await server.api("POST", "/api/v1/calendars", {
  name: "us-holidays",
  description: "Christmas and New Year's Day",
  rules: ["FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=25", "FREQ=YEARLY;BYMONTH=1;BYMONTHDAY=1"],
  observed: "nearest_weekday",
});
await server.api("POST", "/api/v1/calendars", {
  name: "office",
  description: "Office closing days",
  include: ["us-holidays"],
  dates: ["2027-08-18"],
  weekdays: "sun-thu",
});

const { context } = await launch(pw);
const page = await context.newPage();
// The unknown calendar's 404s are asked for.
const errors = watch(page, /404.*\/api\/v1\/calendars\/no-such/);
const thisYear = new Date().getFullYear();

// The cell of DATE in the month table of its month: its accessible name
// (the aria-label) and its kind.
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
  "September", "October", "November", "December"];
function cell(date) {
  const [y, m] = date.split("-").map(Number);
  return page.getByRole("table", { name: `${MONTHS[m - 1]} ${y}`, exact: true })
    .getByRole("cell", { name: new RegExp(`^\\w+ ${date}:`) });
}
async function dayName(date) {
  const c = cell(date);
  await c.waitFor();
  return (await c.getAttribute("aria-label")) || "";
}

await step("the list, from the navigation", async () => {
  await page.goto(`${server.url}/#/schedules`);
  await page.getByRole("navigation").getByRole("link", { name: "Calendars", exact: true }).click();
  await page.waitForURL(/#\/calendars$/);
  await page.getByRole("heading", { level: 1, name: "Calendars" }).waitFor();
  check("the navigation marks Calendars", (await page.getByRole("navigation")
    .getByRole("link", { name: "Calendars", exact: true }).getAttribute("aria-current")) === "page");
  const row = (name) => page.getByRole("row").filter({ has: page.getByRole("link", { name, exact: true }) });
  await row("office").waitFor();
  const col = async (name, label) =>
    ((await row(name).locator(`[data-label="${label}"]`).textContent()) || "").trim();
  const names = await page.getByRole("table", { name: "Calendars" }).getByRole("link").allTextContents();
  check("both calendars, by name", names.join(" ") === "office us-holidays", names.join(" "));
  check("office: its description", (await col("office", "Description")) === "Office closing days");
  check("office: from the API", (await col("office", "Source")) === "api");
  check("office: 1 date", (await col("office", "Dates")) === "1");
  check("office: 0 rules", (await col("office", "Rules")) === "0");
  check("office: 1 include", (await col("office", "Includes")) === "1");
  check("office: observed none", (await col("office", "Observed")) === "none");
  const owd = await col("office", "Business weekdays");
  check("office: Sunday to Thursday", owd === "Sunday to Thursday", owd);
  check("us-holidays: 0 dates", (await col("us-holidays", "Dates")) === "0");
  check("us-holidays: 2 rules", (await col("us-holidays", "Rules")) === "2");
  check("us-holidays: 0 includes", (await col("us-holidays", "Includes")) === "0");
  check("us-holidays: observed nearest_weekday", (await col("us-holidays", "Observed")) === "nearest_weekday");
  const wd = await col("us-holidays", "Business weekdays");
  check("us-holidays: Monday to Friday", wd === "Monday to Friday", wd);
});

await step("a calendar's page: its definition and this year", async () => {
  await page.getByRole("link", { name: "us-holidays", exact: true }).click();
  await page.waitForURL(/#\/calendars\/us-holidays$/);
  await page.getByRole("heading", { level: 1, name: /us-holidays/ }).waitFor();
  const def = page.getByRole("region", { name: "Definition" });
  await def.getByText("FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=25").waitFor();
  await def.getByText("FREQ=YEARLY;BYMONTH=1;BYMONTHDAY=1").waitFor();
  await def.getByRole("link", { name: "office", exact: true }).waitFor(); // included by
  await page.getByRole("heading", { level: 2, name: `Year ${thisYear}` }).waitFor();
  await eventually(async () => (await page.locator("table.month").count()) === 12, 5000, "12 month tables");
  for (let m = 0; m < 12; m++) {
    const t = page.getByRole("table", { name: `${MONTHS[m]} ${thisYear}`, exact: true });
    if (!check(`${MONTHS[m]} ${thisYear}: a table named by its caption`, (await t.count()) === 1)) continue;
    const heads = await t.getByRole("columnheader").allTextContents();
    if (m === 0) check("a column header per weekday, from Monday", heads.length === 7 &&
      /Monday/.test(heads[0]) && /Sunday/.test(heads[6]), heads.join(","));
  }
  const xmas = await dayName(`${thisYear}-12-25`);
  check(`${thisYear}-12-25: a holiday`, /: (observed )?holiday\b/.test(xmas), xmas);
  await page.getByText(/Holiday: a day of the calendar's set/).waitFor(); // the legend
});

await step("next year: 2027", async () => {
  // From this year to 2027 (the test's dates), by the "Next year" button.
  for (let y = thisYear; y < 2027; y++) {
    await page.getByRole("button", { name: /^Next year/ }).click();
    await page.getByRole("heading", { level: 2, name: `Year ${y + 1}` }).waitFor();
  }
  await page.getByRole("table", { name: "December 2027", exact: true }).waitFor();
  await page.waitForURL(/#\/calendars\/us-holidays\?year=2027$/);
  const sat = await dayName("2027-12-25");
  check("2027-12-25, a Saturday: a holiday", /^Saturday 2027-12-25: holiday\b/.test(sat), sat);
  const fri = await dayName("2027-12-24");
  check("2027-12-24, the Friday before: the observed holiday",
    /^Friday 2027-12-24: observed holiday \(Saturday 2027-12-25 observed\)$/.test(fri), fri);
  const nye = await dayName("2027-12-31");
  check("2027-12-31: observed for New Year's Day 2028, a Saturday",
    /^Friday 2027-12-31: observed holiday \(Saturday 2028-01-01 observed\)$/.test(nye), nye);
  const wed = await dayName("2027-12-22");
  check("2027-12-22, a Wednesday: a business day", wed === "Wednesday 2027-12-22: business day", wed);
  const sun = await dayName("2027-12-26");
  check("2027-12-26, a Sunday: a weekend day", sun === "Sunday 2027-12-26: weekend", sun);

  // Every day as the API says.
  const q = "from=2027-01-01&to=2027-12-31";
  const inSet = new Set((await server.api("GET", `/api/v1/calendars/us-holidays/days?${q}`)).days.map((d) => d.date));
  const biz = new Set((await server.api("GET", `/api/v1/calendars/us-holidays/days?${q}&business=true`)).days.map((d) => d.date));
  check("the API puts the observed 2027-12-24 in the set", inSet.has("2027-12-24") && inSet.has("2027-12-25"));
  const shown = await page.locator("table.month td[data-date]").evaluateAll((tds) =>
    tds.map((td) => [td.dataset.date, td.dataset.kind, td.getAttribute("aria-label")]));
  check("365 days of 2027", shown.length === 365 && shown.every(([d]) => d.startsWith("2027-")), String(shown.length));
  const wrong = shown.filter(([d, kind, label]) =>
    inSet.has(d) !== (kind === "holiday" || kind === "observed") || biz.has(d) !== (kind === "business") ||
    !label.includes(d));
  check("every day's kind as the API's days say", wrong.length === 0, JSON.stringify(wrong.slice(0, 5)));
  const summary = (await page.getByRole("status").filter({ hasText: "In 2027" }).textContent()) || "";
  check("the year's count", summary.includes(`${inSet.size} days in the set`) && summary.includes(`${biz.size} business days`), summary);

  await page.reload();
  await page.getByRole("heading", { level: 2, name: "Year 2027" }).waitFor();
  const again = await dayName("2027-12-24");
  check("a reload keeps 2027", /observed holiday/.test(again), again);
});

await step("previous year: 2025", async () => {
  await page.getByRole("button", { name: /^Previous year/ }).click();
  await page.getByRole("heading", { level: 2, name: "Year 2026" }).waitFor();
  await page.getByRole("button", { name: /^Previous year/ }).click();
  await page.getByRole("heading", { level: 2, name: "Year 2025" }).waitFor();
  await page.getByRole("table", { name: "December 2025", exact: true }).waitFor();
  check("the 2027 grids are gone", (await page.getByRole("table", { name: "December 2027" }).count()) === 0);
  const thu = await dayName("2025-12-25");
  check("2025-12-25, a Thursday: a holiday", thu === "Thursday 2025-12-25: holiday", thu);
  const wed = await dayName("2025-12-24");
  check("2025-12-24, a Wednesday: a business day", wed === "Wednesday 2025-12-24: business day", wed);
});

await step("an include links to the included calendar's page", async () => {
  await page.goto(`${server.url}/#/calendars/office?year=2027`);
  await page.getByRole("heading", { level: 1, name: /office/ }).waitFor();
  const aug = await dayName("2027-08-18");
  check("office: 2027-08-18 a holiday", aug === "Wednesday 2027-08-18: holiday", aug);
  const xmas = await dayName("2027-12-25");
  check("office: 2027-12-25 a holiday, from its include", /^Saturday 2027-12-25: holiday/.test(xmas), xmas);
  const sun = await dayName("2027-12-26");
  check("office: a Sunday, a business day", sun === "Sunday 2027-12-26: business day", sun);
  const fri = await dayName("2027-12-17");
  check("office: a Friday, a weekend day", fri === "Friday 2027-12-17: weekend", fri);
  const def = page.getByRole("region", { name: "Definition" });
  await def.getByText("2027-08-18").waitFor();
  const link = def.getByRole("link", { name: "us-holidays", exact: true });
  check("the include is a link to its page", (await link.getAttribute("href")) === "#/calendars/us-holidays");
  await link.click();
  await page.waitForURL(/#\/calendars\/us-holidays$/);
  await page.getByRole("heading", { level: 1, name: /us-holidays/ }).waitFor();
  await page.getByRole("heading", { level: 2, name: `Year ${thisYear}` }).waitFor();
  if (thisYear !== 2027) {
    await page.goto(`${server.url}/#/calendars/us-holidays?year=2027`);
    await page.getByRole("heading", { level: 2, name: "Year 2027" }).waitFor();
  }
  const there = await dayName("2027-08-18");
  check("us-holidays: 2027-08-18 a business day", there === "Wednesday 2027-08-18: business day", there);
});

await step("a change of the calendar shows without a reload", async () => {
  await page.goto(`${server.url}/#/calendars/us-holidays?year=2027`);
  await page.getByRole("heading", { level: 2, name: "Year 2027" }).waitFor();
  check("2027-12-22 a business day first", (await dayName("2027-12-22")) === "Wednesday 2027-12-22: business day");
  await page.evaluate(() => { window.skedNoReload = true; });
  const c = await server.api("GET", "/api/v1/calendars/us-holidays");
  await server.api("PUT", "/api/v1/calendars/us-holidays", {
    description: c.description, rules: c.rules, observed: c.observed, dates: ["2027-12-22"],
  });
  await eventually(async () => (await dayName("2027-12-22")) === "Wednesday 2027-12-22: holiday", 10000,
    "2027-12-22 a holiday once the calendar has it");
  check("without a reload", await page.evaluate(() => window.skedNoReload === true));
  await page.getByRole("region", { name: "Definition" }).getByText("2027-12-22").waitFor();
});

await step("the range's ends: 1970 and 2200", async () => {
  await page.goto(`${server.url}/#/calendars/us-holidays?year=2200`);
  await page.getByRole("table", { name: "December 2200", exact: true }).waitFor();
  check("2200-12-25 a holiday", /^Thursday 2200-12-25: holiday$/.test(await dayName("2200-12-25")));
  check("no next year after 2200", await page.getByRole("button", { name: /^Next year/ }).isDisabled());
  await page.goto(`${server.url}/#/calendars/us-holidays?year=1970`);
  await page.getByRole("table", { name: "January 1970", exact: true }).waitFor();
  check("1970-01-01 a holiday", /^Thursday 1970-01-01: holiday$/.test(await dayName("1970-01-01")));
  check("no previous year before 1970", await page.getByRole("button", { name: /^Previous year/ }).isDisabled());
  check("no error said", (await page.locator(".msg-error").count()) === 0);
});

await step("an unknown calendar", async () => {
  await page.goto(`${server.url}/#/calendars/no-such`);
  await page.getByRole("heading", { level: 1, name: /no-such/ }).waitFor();
  await page.locator("main").getByText('No calendar "no-such".').first().waitFor();
});

noErrors("calendars", errors);
await finish();
