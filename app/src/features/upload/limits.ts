// The upload screen's limits (spec section 9). Kept here rather than in
// `@/config/constants` because only this feature uses them (the storage
// ones are shared with the edit screen's new versions: @/lib/template-upload).
export const MAX_ADDITIONAL_PREVIEWS = 6
export { UPLOAD_CACHE_CONTROL, UPLOAD_NAME_ATTEMPTS } from '@/lib/template-upload'
