// The account screens' own constants (spec sections 3, 5 and 9).
export const USERNAME_MIN_LENGTH = 3
export const USERNAME_MAX_LENGTH = 30
/** The dashboard profile's variant of the recommended avatar size. */
export const DASHBOARD_AVATAR_RECOMMENDED = '400x400px'
export const BIO_MAX_LENGTH = 500

export type SocialKey = 'website' | 'twitter' | 'instagram' | 'github'

/**
 * The social_links keys and how they are labelled: twitter under the
 * network's new name, github as a video-network link (spec section 3; the
 * public profile labels them the same way).
 */
export const SOCIAL_FIELDS: ReadonlyArray<{ key: SocialKey; label: string; placeholder: string }> = [
  { key: 'website', label: 'Website', placeholder: 'https://your-site.com' },
  { key: 'twitter', label: 'X', placeholder: 'https://x.com/yourname' },
  { key: 'instagram', label: 'Instagram', placeholder: 'https://instagram.com/yourname' },
  { key: 'github', label: 'YouTube', placeholder: 'https://youtube.com/@yourname' },
]

/** The locked crypto payouts teaser (spec section 2, Settings). */
export const CRYPTO_WALLETS = ['MetaMask', 'Coinbase Wallet', 'Trust Wallet', 'Ledger'] as const
export const CRYPTO_CURRENCIES = ['BTC', 'ETH'] as const
export const CRYPTO_SCHEDULES = ['Weekly', 'Monthly', 'Quarterly'] as const
