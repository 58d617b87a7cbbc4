import { CARD_TAGS_SHOWN } from '@/config/constants'

/** The tags a card shows: the first two, then '+N' for the rest (the template cards of the grids and of My Templates). */
export function cardTags(tags: string[] | null | undefined): { shown: string[]; more: number } {
  const all = tags ?? []
  return { shown: all.slice(0, CARD_TAGS_SHOWN), more: Math.max(0, all.length - CARD_TAGS_SHOWN) }
}
