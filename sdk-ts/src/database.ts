// The `Database` type of the marketplace schema. Until `plinth gen types
// typescript` writes this file, it is the loose shape supabase-js accepts for
// any schema.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Database = any
