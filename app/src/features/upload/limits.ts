// The upload screen's limits (spec section 9). Kept here rather than in
// `@/config/constants` because only this feature uses them.
export const MAX_ADDITIONAL_PREVIEWS = 6
/** Uploads are cached for an hour (spec: cache control 3600). */
export const UPLOAD_CACHE_CONTROL = '3600'
/** How many names are tried when storage answers 'The resource already exists'. */
export const UPLOAD_NAME_ATTEMPTS = 3
