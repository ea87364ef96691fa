/**
 * Where each region type sits on a user and in GET /v1/context, in event order. Apart from
 * regions/index.ts, which loads country-coder's borders (~0.3 s): event types need only the names.
 */
export const REGION_FIELDS = {country: 'country', state: 'state', dma: 'dma', postal_code: 'postalCode'} as const
