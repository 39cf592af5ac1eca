// The locales the simulated upstreams render pages in: interface words as the real pages of each market write them
// (modelled on the localized fixtures in ../shared/fixtures: de, pt-BR, es, el, en-AE) and every number, price and
// date formatted by ICU (`Intl`), so a page carries the separators a real one does: decimal commas, no-break and
// narrow no-break spaces as group separators (fr-FR), lakh grouping (en-IN), year-first dates (ja-JP), right to left
// with Arabic month names (ar-AE).

export type SimLocaleTag = 'en-US' | 'en-GB' | 'de-DE' | 'fr-FR' | 'es-ES' | 'pt-BR' | 'ja-JP' | 'en-IN' | 'ar-AE';

export interface SimLocale {
  tag: SimLocaleTag;
  /** `hl` and `gl` of a request in this locale. */
  hl: string;
  gl: string;
  dir: 'ltr' | 'rtl';
  search: { search: string; related: string; paa: string; results: string; noMatch: (q: string) => string };
  maps: {
    stars: string;
    reviews: string;
    address: string;
    phone: string;
    website: string;
    priceLevels: readonly [string, string, string];
    currencySymbol: string;
    results: string;
    closed: string;
  };
  retail: {
    host: string;
    currency: string;
    htmlLang: string;
    outOf5: (rating: string) => string;
    ratings: string;
    reviewsRow: string;
    visitStore: (brand: string) => string;
    inStock: string;
    soldBy: string;
    addToCart: string;
    about: string;
    bsrRow: string;
    /** One best-sellers rank line as the store writes it. */
    rank: (rank: string, category: string) => string;
    dateRow: string;
    bought: string;
  };
}

const EN_RETAIL = {
  outOf5: (r: string) => `${r} out of 5 stars`,
  ratings: 'ratings',
  reviewsRow: 'Customer Reviews',
  visitStore: (b: string) => `Visit the ${b} Store`,
  inStock: 'In Stock',
  soldBy: 'Sold by',
  addToCart: 'Add to Cart',
  about: 'About this item',
  bsrRow: 'Best Sellers Rank',
  rank: (n: string, c: string) => `#${n} in ${c}`,
  dateRow: 'Date First Available',
  bought: 'bought in past month',
};

const EN_SEARCH = {
  search: 'Google Search',
  related: 'Related searches',
  paa: 'People also ask',
  results: 'Search Results',
  noMatch: (q: string) => `Your search - ${q} - did not match any documents.`,
};

const EN_MAPS = {
  stars: 'stars',
  reviews: 'reviews',
  address: 'Address',
  phone: 'Phone',
  website: 'Website',
  results: 'Results',
  closed: 'Closed',
};

export const SIM_LOCALES: readonly SimLocale[] = [
  {
    tag: 'en-US',
    hl: 'en',
    gl: 'us',
    dir: 'ltr',
    search: EN_SEARCH,
    maps: { ...EN_MAPS, priceLevels: ['Inexpensive', 'Moderate', 'Expensive'], currencySymbol: '$' },
    retail: { host: 'www.amazon.com', currency: 'USD', htmlLang: 'en-us', ...EN_RETAIL },
  },
  {
    tag: 'en-GB',
    hl: 'en',
    gl: 'gb',
    dir: 'ltr',
    search: EN_SEARCH,
    maps: { ...EN_MAPS, priceLevels: ['Inexpensive', 'Moderate', 'Expensive'], currencySymbol: '£' },
    retail: { host: 'www.amazon.co.uk', currency: 'GBP', htmlLang: 'en-gb', ...EN_RETAIL },
  },
  {
    tag: 'en-IN',
    hl: 'en',
    gl: 'in',
    dir: 'ltr',
    search: EN_SEARCH,
    maps: { ...EN_MAPS, priceLevels: ['Inexpensive', 'Moderate', 'Expensive'], currencySymbol: '₹' },
    retail: { host: 'www.amazon.in', currency: 'INR', htmlLang: 'en-in', ...EN_RETAIL },
  },
  {
    tag: 'de-DE',
    hl: 'de',
    gl: 'de',
    dir: 'ltr',
    search: {
      search: 'Google Suche',
      related: 'Ähnliche Suchanfragen',
      paa: 'Nutzer fragen auch',
      results: 'Suchergebnisse',
      noMatch: (q) => `Die Suche nach ${q} ergab keine Treffer.`,
    },
    maps: {
      stars: 'Sterne',
      reviews: 'Rezensionen',
      address: 'Adresse',
      phone: 'Telefon',
      website: 'Website',
      closed: 'Geschlossen',
      results: 'Ergebnisse',
      priceLevels: ['Günstig', 'Mittelpreisig', 'Teuer'],
      currencySymbol: '€',
    },
    retail: {
      host: 'www.amazon.de',
      currency: 'EUR',
      htmlLang: 'de-de',
      outOf5: (r) => `${r} von 5 Sternen`,
      ratings: 'Sternebewertungen',
      reviewsRow: 'Kundenrezensionen',
      visitStore: (b) => `Besuche den ${b}-Store`,
      inStock: 'Auf Lager',
      soldBy: 'Verkauf durch',
      addToCart: 'In den Einkaufswagen',
      about: 'Über diesen Artikel',
      bsrRow: 'Amazon Bestseller-Rang',
      rank: (n, c) => `Nr. ${n} in ${c}`,
      dateRow: 'Im Angebot von Amazon.de seit',
      bought: 'Mal im letzten Monat gekauft',
    },
  },
  {
    tag: 'fr-FR',
    hl: 'fr',
    gl: 'fr',
    dir: 'ltr',
    search: {
      search: 'Recherche Google',
      related: 'Recherches associées',
      paa: 'Autres questions posées',
      results: 'Résultats de recherche',
      noMatch: (q) => `Aucun document ne correspond aux termes de recherche spécifiés (${q}).`,
    },
    maps: {
      stars: 'étoiles',
      reviews: 'avis',
      address: 'Adresse',
      phone: 'Numéro de téléphone',
      website: 'Site Web',
      closed: 'Fermé',
      results: 'Résultats',
      priceLevels: ['Bon marché', 'Modéré', 'Cher'],
      currencySymbol: '€',
    },
    retail: {
      host: 'www.amazon.fr',
      currency: 'EUR',
      htmlLang: 'fr-fr',
      outOf5: (r) => `${r} sur 5\u00a0étoiles`,
      ratings: 'évaluations',
      reviewsRow: 'Moyenne des commentaires client',
      visitStore: (b) => `Visitez la boutique ${b}`,
      inStock: 'En stock',
      soldBy: 'Vendu par',
      addToCart: 'Ajouter au panier',
      about: 'À propos de cet article',
      bsrRow: 'Classement des meilleures ventes d’Amazon',
      rank: (n, c) => `${n} en ${c}`,
      dateRow: 'Date de mise en ligne sur Amazon.fr',
      bought: 'achetés au cours du mois dernier',
    },
  },
  {
    tag: 'es-ES',
    hl: 'es',
    gl: 'es',
    dir: 'ltr',
    search: {
      search: 'Buscar con Google',
      related: 'Búsquedas relacionadas',
      paa: 'Más preguntas',
      results: 'Resultados de búsqueda',
      noMatch: (q) => `No se han encontrado resultados para tu búsqueda (${q}).`,
    },
    maps: {
      stars: 'estrellas',
      reviews: 'reseñas',
      address: 'Dirección',
      phone: 'Teléfono',
      website: 'Sitio web',
      closed: 'Cerrado',
      results: 'Resultados',
      priceLevels: ['Económico', 'Precio moderado', 'Caro'],
      currencySymbol: '€',
    },
    retail: {
      host: 'www.amazon.es',
      currency: 'EUR',
      htmlLang: 'es-es',
      outOf5: (r) => `${r} de 5 estrellas`,
      ratings: 'valoraciones',
      reviewsRow: 'Opiniones de los clientes',
      visitStore: (b) => `Visita la tienda de ${b}`,
      inStock: 'En stock',
      soldBy: 'Vendido por',
      addToCart: 'Añadir a la cesta',
      about: 'Acerca de este producto',
      bsrRow: 'Clasificación en los más vendidos de Amazon',
      rank: (n, c) => `n.º ${n} en ${c}`,
      dateRow: 'Producto en Amazon.es desde',
      bought: 'comprados el mes pasado',
    },
  },
  {
    tag: 'pt-BR',
    hl: 'pt-BR',
    gl: 'br',
    dir: 'ltr',
    search: {
      search: 'Pesquisa Google',
      related: 'Pesquisas relacionadas',
      paa: 'As pessoas também perguntam',
      results: 'Resultados da pesquisa',
      noMatch: (q) => `Sua pesquisa - ${q} - não encontrou nenhum documento correspondente.`,
    },
    maps: {
      stars: 'estrelas',
      reviews: 'avaliações',
      address: 'Endereço',
      phone: 'Telefone',
      website: 'Website',
      closed: 'Fechado',
      results: 'Resultados',
      priceLevels: ['Barato', 'Moderado', 'Caro'],
      currencySymbol: '$',
    },
    retail: {
      host: 'www.amazon.com.br',
      currency: 'BRL',
      htmlLang: 'pt-br',
      outOf5: (r) => `${r} de 5 estrelas`,
      ratings: 'avaliações de clientes',
      reviewsRow: 'Avaliações de clientes',
      visitStore: (b) => `Visite a loja ${b}`,
      inStock: 'Em estoque',
      soldBy: 'Vendido por',
      addToCart: 'Adicionar ao carrinho',
      about: 'Sobre este item',
      bsrRow: 'Ranking dos mais vendidos',
      rank: (n, c) => `nº ${n} em ${c}`,
      dateRow: 'Disponível para compra desde',
      bought: 'compras no mês passado',
    },
  },
  {
    tag: 'ja-JP',
    hl: 'ja',
    gl: 'jp',
    dir: 'ltr',
    search: {
      search: 'Google 検索',
      related: '関連する検索',
      paa: '他の人はこちらも質問',
      results: '検索結果',
      noMatch: (q) => `${q} に一致する情報は見つかりませんでした。`,
    },
    maps: {
      stars: 'つ星',
      reviews: '件のクチコミ',
      address: '住所',
      phone: '電話番号',
      website: 'ウェブサイト',
      closed: '定休日',
      results: '結果',
      priceLevels: ['安い', '普通', '高い'],
      currencySymbol: '¥',
    },
    retail: {
      host: 'www.amazon.co.jp',
      currency: 'JPY',
      htmlLang: 'ja-jp',
      outOf5: (r) => `5つ星のうち${r}`,
      ratings: '個の評価',
      reviewsRow: 'カスタマーレビュー',
      visitStore: (b) => `${b}のストアを表示`,
      inStock: '在庫あり。',
      soldBy: '販売元',
      addToCart: 'カートに入れる',
      about: 'この商品について',
      bsrRow: 'Amazon 売れ筋ランキング',
      rank: (n, c) => `- ${n}位${c}`,
      dateRow: 'Amazon.co.jp での取り扱い開始日',
      bought: '過去1か月で購入されました',
    },
  },
  {
    // Right to left; ICU writes Latin digits for ar-AE (as amazon.ae and Google do) and Arabic month names.
    tag: 'ar-AE',
    hl: 'ar',
    gl: 'ae',
    dir: 'rtl',
    search: {
      search: 'بحث Google',
      related: 'عمليات بحث ذات صلة',
      paa: 'أسئلة ذات صلة',
      results: 'نتائج البحث',
      noMatch: (q) => `لم يتطابق بحثك - ${q} - مع أي مستند.`,
    },
    maps: {
      stars: 'نجوم',
      reviews: 'مراجعة',
      address: 'العنوان',
      phone: 'الهاتف',
      website: 'الموقع الإلكتروني',
      closed: 'مغلق',
      results: 'النتائج',
      priceLevels: ['غير مكلف', 'متوسط التكلفة', 'مكلف'],
      currencySymbol: '$',
    },
    retail: {
      host: 'www.amazon.ae',
      currency: 'AED',
      htmlLang: 'ar-ae',
      outOf5: (r) => `${r} من 5 نجوم`,
      ratings: 'تقييمات',
      reviewsRow: 'مراجعات العملاء',
      visitStore: (b) => `زيارة متجر ${b}`,
      inStock: 'متوفر',
      soldBy: 'يباع من قبل',
      addToCart: 'إضافة إلى عربة التسوق',
      about: 'حول هذه السلعة',
      bsrRow: 'تصنيف الأفضل مبيعاً',
      rank: (n, c) => `رقم ${n} في ${c}`,
      dateRow: 'تاريخ أول توفر',
      bought: 'تم شراؤها في الشهر الماضي',
    },
  },
];

/** The locale of a request's hl/gl (`hl=de&gl=de` → de-DE, `hl=en&gl=in` → en-IN); en-US when none fits. */
export function simLocaleFor(hl: string | undefined, gl?: string): SimLocale {
  const lang = (hl ?? 'en').toLowerCase();
  const region = (gl ?? '').toLowerCase();
  return (
    SIM_LOCALES.find((l) => l.hl.toLowerCase() === lang && l.gl === region) ??
    SIM_LOCALES.find((l) => l.tag.toLowerCase() === lang) ??
    SIM_LOCALES.find((l) => l.hl.toLowerCase().slice(0, 2) === lang.slice(0, 2)) ??
    SIM_LOCALES[0]
  );
}

export function simLocale(tag: SimLocaleTag): SimLocale {
  return SIM_LOCALES.find((l) => l.tag === tag) ?? SIM_LOCALES[0];
}

/** A number as the locale writes it (`1,23,456` in en-IN, `12 345` with U+202F in fr-FR). */
export function formatNumber(tag: string, n: number, fractionDigits?: number): string {
  return n.toLocaleString(
    tag,
    fractionDigits === undefined
      ? {}
      : { minimumFractionDigits: fractionDigits, maximumFractionDigits: fractionDigits },
  );
}

/** A price as the locale writes it (`29,99 €`, `₹1,299.00`, `￥3,980`, `R$ 29,99`). */
export function formatPrice(tag: string, currency: string, n: number): string {
  return new Intl.NumberFormat(tag, { style: 'currency', currency }).format(n);
}

/** A long date as the locale writes it (`12 March 2021`, `12. März 2021`, `2021/3/12`). */
export function formatDate(tag: string, y: number, m: number, d: number): string {
  const style =
    tag === 'ja-JP'
      ? { year: 'numeric', month: 'numeric', day: 'numeric' }
      : { year: 'numeric', month: 'long', day: 'numeric' };
  return new Intl.DateTimeFormat(tag, { ...(style as Intl.DateTimeFormatOptions), timeZone: 'UTC' }).format(
    new Date(Date.UTC(y, m, d)),
  );
}

/** Weekday names, Monday first, from ICU. */
export function weekdays(tag: string): string[] {
  const fmt = new Intl.DateTimeFormat(tag, { weekday: 'long', timeZone: 'UTC' });
  return Array.from({ length: 7 }, (_, i) => fmt.format(new Date(Date.UTC(2024, 0, 1 + i))));
}

/** An hour of the day as the locale writes it (`6 AM`, `06:00`, `6:00`). */
export function formatHour(tag: string, h: number): string {
  return new Intl.DateTimeFormat(tag, {
    hour: 'numeric',
    minute: tag.startsWith('en') ? undefined : '2-digit',
    timeZone: 'UTC',
  }).format(new Date(Date.UTC(2024, 0, 1, h)));
}
