// Compile-time checks of the generated `Database` type through the typed
// client: `npm run typecheck` (tsc --noEmit, strict) fails if a correct use
// stops compiling or a wrong one starts compiling (`@ts-expect-error`).
import { createClient } from '../../src/index'

const client = createClient('http://localhost:8000', 'anon-key')

export async function correctUsesCompile(): Promise<void> {
  const { data } = await client.from('templates').select('id, title, price, categories(name, slug)').eq('is_published', true)
  const first = data?.[0]
  if (first) {
    const id: string = first.id
    const title: string = first.title
    const price: number = first.price
    const category: string | undefined = first.categories?.name
    void [id, title, price, category]
  }
  const inserted = await client
    .from('followers')
    .insert({ follower_id: 'a', following_id: 'b' })
    .select('follower_id')
    .single()
  const follower: string | undefined = inserted.data?.follower_id
  const count = await client.rpc('get_follower_count', { user_id: 'a' })
  const followers: number | null = count.data
  const trending = await client.rpc('get_trending_creators', { limit_count: 4 })
  const rank: number | undefined = trending.data?.[0]?.rank
  void [follower, followers, rank]
}

export async function wrongUsesDoNotCompile(): Promise<void> {
  const { data } = await client.from('templates').select('id, no_such_column')
  // @ts-expect-error an unknown column turns the row into a query error, not a row
  const wrong: string = data![0].no_such_column
  void wrong

  // @ts-expect-error an unknown table
  await client.from('no_such_table').select('*')

  // @ts-expect-error an unknown RPC argument
  await client.rpc('get_follower_count', { wrong_argument: 'a' })

  // @ts-expect-error an RPC argument of the wrong type
  await client.rpc('get_follower_count', { user_id: 42 })

  // @ts-expect-error an insert of a column the table does not have
  await client.from('followers').insert({ follower_id: 'a', following_id: 'b', nope: 1 })
}
