// Address helpers: split a one-line address into parts, and name countries and US states.

const US_STATES: Record<string, string> = {
  AL: 'Alabama',
  AK: 'Alaska',
  AZ: 'Arizona',
  AR: 'Arkansas',
  CA: 'California',
  CO: 'Colorado',
  CT: 'Connecticut',
  DE: 'Delaware',
  DC: 'District of Columbia',
  FL: 'Florida',
  GA: 'Georgia',
  HI: 'Hawaii',
  ID: 'Idaho',
  IL: 'Illinois',
  IN: 'Indiana',
  IA: 'Iowa',
  KS: 'Kansas',
  KY: 'Kentucky',
  LA: 'Louisiana',
  ME: 'Maine',
  MD: 'Maryland',
  MA: 'Massachusetts',
  MI: 'Michigan',
  MN: 'Minnesota',
  MS: 'Mississippi',
  MO: 'Missouri',
  MT: 'Montana',
  NE: 'Nebraska',
  NV: 'Nevada',
  NH: 'New Hampshire',
  NJ: 'New Jersey',
  NM: 'New Mexico',
  NY: 'New York',
  NC: 'North Carolina',
  ND: 'North Dakota',
  OH: 'Ohio',
  OK: 'Oklahoma',
  OR: 'Oregon',
  PA: 'Pennsylvania',
  RI: 'Rhode Island',
  SC: 'South Carolina',
  SD: 'South Dakota',
  TN: 'Tennessee',
  TX: 'Texas',
  UT: 'Utah',
  VT: 'Vermont',
  VA: 'Virginia',
  WA: 'Washington',
  WV: 'West Virginia',
  WI: 'Wisconsin',
  WY: 'Wyoming',
  PR: 'Puerto Rico',
  GU: 'Guam',
  VI: 'U.S. Virgin Islands',
  AS: 'American Samoa',
  MP: 'Northern Mariana Islands',
};

export interface AddressParts {
  street?: string;
  streetSupplement?: string;
  city?: string;
  state?: string;
  postalCode?: string;
  countryCode?: string;
}

let countryByName: Map<string, string> | undefined;
const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });

/** English country name of an ISO alpha-2 code ('' when unknown). */
export function countryName(code: string | undefined): string {
  if (!code || !/^[A-Z]{2}$/i.test(code)) return '';
  try {
    const name = regionNames.of(code.toUpperCase());
    return name && name !== code.toUpperCase() ? name : '';
  } catch {
    return '';
  }
}

/** ISO alpha-2 code of an English country name, or of a code itself. */
export function countryCodeOf(nameOrCode: string | undefined): string | undefined {
  if (!nameOrCode) return undefined;
  const t = nameOrCode.trim();
  if (/^[A-Z]{2}$/.test(t) && countryName(t)) return t;
  if (!countryByName) {
    countryByName = new Map();
    for (let a = 65; a <= 90; a++) {
      for (let b = 65; b <= 90; b++) {
        const code = String.fromCharCode(a, b);
        const name = countryName(code);
        if (name) countryByName.set(name.toLowerCase(), code);
      }
    }
    countryByName.set('usa', 'US');
    countryByName.set('united states of america', 'US');
    countryByName.set('uk', 'GB');
  }
  return countryByName.get(t.toLowerCase());
}

/** `{ abbr, name }` of a US state given either form; both '' when it is not one. */
export function usState(value: string | undefined): { abbr: string; name: string } {
  if (!value) return { abbr: '', name: '' };
  const t = value.trim();
  if (US_STATES[t.toUpperCase()] && t.length === 2) return { abbr: t.toUpperCase(), name: US_STATES[t.toUpperCase()] };
  const hit = Object.entries(US_STATES).find(([, name]) => name.toLowerCase() === t.toLowerCase());
  return hit ? { abbr: hit[0], name: hit[1] } : { abbr: '', name: '' };
}

/**
 * Splits a one-line address (`2800 E Observatory Rd, Los Angeles, CA 90027`, `Eakou 74, Ilion 131 22, Greece`,
 * `Unter den Linden 1, 10117 Berlin, Germany`) into parts. Best effort: unknown shapes leave parts undefined.
 */
export function splitAddress(address: string | undefined): AddressParts {
  if (!address) return {};
  const parts = address
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const out: AddressParts = {};
  const lastCountry = parts.length > 1 ? countryCodeOf(parts[parts.length - 1]) : undefined;
  if (lastCountry) {
    out.countryCode = lastCountry;
    parts.pop();
  }
  const last = parts[parts.length - 1];
  if (last === undefined) return out;
  const us = /^([A-Z]{2}) (\d{5}(?:-\d{4})?)$/.exec(last);
  if (us && US_STATES[us[1]]) {
    out.state = us[1];
    out.postalCode = us[2];
    out.countryCode ??= 'US';
    parts.pop();
    out.city = parts.pop();
  } else {
    const cityFirst = /^(\D+?)\s+(\d[\d -]{2,8}\d)$/.exec(last);
    const postalFirst = /^(\d[\d -]{2,8}\d)\s+(\D+)$/.exec(last);
    if (cityFirst) {
      out.city = cityFirst[1];
      out.postalCode = cityFirst[2];
      parts.pop();
    } else if (postalFirst) {
      out.postalCode = postalFirst[1];
      out.city = postalFirst[2];
      parts.pop();
    } else if (parts.length > 1) {
      out.city = parts.pop();
    }
  }
  if (parts.length > 0) out.street = parts[0];
  if (parts.length > 1) out.streetSupplement = parts.slice(1).join(', ');
  return out;
}
