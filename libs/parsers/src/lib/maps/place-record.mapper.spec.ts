import { describe, expect, it } from '@jest/globals';
import { toMapsPlaceItem, toPlaceRecord } from './place-record.mapper.js';

describe('place records: what the page does not show is null, never 0', () => {
  it('gives null coordinates and rating for a place whose page shows neither', () => {
    const facts = { name: 'Café Sin Mapa', address: 'Calle 1' };
    expect(toPlaceRecord(facts)).toMatchObject({ latitude: null, longitude: null, mp_rating: null });
    expect(toMapsPlaceItem(facts)).toMatchObject({ latitude: null, longitude: null, rating: null });
  });

  it('keeps what the page shows, a 0 included (the equator, the prime meridian)', () => {
    const facts = { name: 'Null Island buoy', latitude: 0, longitude: 0, rating: 4.5 };
    expect(toPlaceRecord(facts)).toMatchObject({ latitude: 0, longitude: 0, mp_rating: 4.5 });
    expect(toMapsPlaceItem(facts)).toMatchObject({ latitude: 0, longitude: 0, rating: 4.5 });
  });
});
