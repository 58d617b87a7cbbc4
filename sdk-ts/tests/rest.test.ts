// supabase.from(...) / supabase.rpc(...) from the unmodified client against
// /rest/v1, on a test schema of the suite's own.
import { beforeAll, describe, expect, it } from 'vitest'
import { anonClient, browserClient, serviceClient, sql, uniqueEmail } from './support/context'

const SCHEMA = `
create table public.compat_authors (id int primary key, name text not null, email text);
create table public.compat_books (
  id int primary key,
  author_id int references public.compat_authors (id),
  title text not null,
  pages int,
  price numeric(8,2),
  tags text[] not null default '{}',
  published date,
  meta jsonb,
  ages int4range,
  search tsvector generated always as (to_tsvector('english', title)) stored
);
create table public.compat_genres (id int primary key, name text unique not null);
create table public.compat_book_genres (
  book_id int references public.compat_books (id) on delete cascade,
  genre_id int references public.compat_genres (id),
  primary key (book_id, genre_id)
);
create table public.compat_notes (id serial primary key, owner uuid not null default auth.uid(), body text not null);
alter table public.compat_authors enable row level security;
alter table public.compat_books enable row level security;
alter table public.compat_genres enable row level security;
alter table public.compat_book_genres enable row level security;
alter table public.compat_notes enable row level security;
create policy "read" on public.compat_authors for select using (true);
create policy "read" on public.compat_books for select using (true);
create policy "write" on public.compat_books for all to authenticated using (true) with check (true);
create policy "read" on public.compat_genres for select using (true);
create policy "read" on public.compat_book_genres for select using (true);
create policy "own notes" on public.compat_notes for all to authenticated
  using (owner = auth.uid()) with check (owner = auth.uid());
create function public.compat_add(a int, b int) returns int language sql immutable as $$ select a + b $$;
create function public.compat_books_longer_than(min_pages int) returns setof public.compat_books
  language sql stable as $$ select * from public.compat_books where pages > min_pages $$;
create function public.compat_fail(message text) returns void language plpgsql as $$
  begin raise exception '%', message using errcode = 'P0001'; end $$;
insert into public.compat_authors values (1, 'Ursula', 'ursula@example.com'), (2, 'Octavia', null), (3, 'Nobody', null);
insert into public.compat_books (id, author_id, title, pages, price, tags, published, meta, ages) values
  (1, 1, 'The Dispossessed', 387, 15.99, '{classic,anarchy}', '1974-05-01', '{"series": "Hainish", "awards": 2}', '[12,99]'),
  (2, 1, 'The Lathe of Heaven', 184, 12.50, '{classic,dreams}', '1971-01-01', '{"series": null, "awards": 1}', '[14,99]'),
  (3, 2, 'Kindred', 264, 11.00, '{time,history}', '1979-06-01', '{"awards": 0}', '[16,99]'),
  (4, 2, 'Parable of the Sower', 345, null, '{dystopia}', '1993-10-01', '{"series": "Parable"}', '[18,99]');
insert into public.compat_genres values (1, 'science fiction'), (2, 'fantasy'), (3, 'literary');
insert into public.compat_book_genres values (1, 1), (2, 1), (2, 2), (3, 3), (4, 1);
notify pgrst, 'reload schema';
`

beforeAll(async () => {
  await sql(SCHEMA)
  // The schema cache reloads off the request path; wait until it has the tables.
  const supabase = anonClient()
  for (let i = 0; i < 100; i++) {
    const { error } = await supabase.from('compat_books').select('id').limit(1)
    if (!error) return
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error('the schema cache never saw the test tables')
})

const ids = (rows: { id: number }[] | null) => (rows ?? []).map((r) => r.id)

describe('select', () => {
  it('reads columns, aliases, casts and JSON paths', async () => {
    const { data, error } = await anonClient()
      .from('compat_books')
      .select('id, name:title, pages::text, series:meta->>series')
      .eq('id', 1)
    expect(error).toBeNull()
    expect(data).toEqual([{ id: 1, name: 'The Dispossessed', pages: '387', series: 'Hainish' }])
  })

  it('embeds to-one, to-many and many-to-many, nested and with !inner', async () => {
    const supabase = anonClient()
    const { data: books } = await supabase
      .from('compat_books')
      .select('title, author:compat_authors(name), compat_genres(name)')
      .order('id')
      .limit(2)
    expect(books).toEqual([
      { title: 'The Dispossessed', author: { name: 'Ursula' }, compat_genres: [{ name: 'science fiction' }] },
      { title: 'The Lathe of Heaven', author: { name: 'Ursula' }, compat_genres: [{ name: 'science fiction' }, { name: 'fantasy' }] },
    ])
    const { data: authors } = await supabase
      .from('compat_authors')
      .select('name, compat_books(title)')
      .order('id')
    expect(authors?.map((a) => [a.name, a.compat_books.length])).toEqual([['Ursula', 2], ['Octavia', 2], ['Nobody', 0]])
    const { data: inner } = await supabase
      .from('compat_authors')
      .select('name, compat_books!inner(title)')
      .eq('compat_books.title', 'Kindred')
    expect(inner).toEqual([{ name: 'Octavia', compat_books: [{ title: 'Kindred' }] }])
  })

  it('orders, limits and filters embedded resources', async () => {
    const { data } = await anonClient()
      .from('compat_authors')
      .select('name, compat_books(title, pages)')
      .eq('id', 1)
      .order('pages', { referencedTable: 'compat_books', ascending: true })
      .limit(1, { referencedTable: 'compat_books' })
    expect(data).toEqual([{ name: 'Ursula', compat_books: [{ title: 'The Lathe of Heaven', pages: 184 }] }])
  })
})

describe('every filter of the query builder', () => {
  const cases: [string, (q: any) => any, number[]][] = [
    ['eq', (q) => q.eq('author_id', 2), [3, 4]],
    ['neq', (q) => q.neq('author_id', 2), [1, 2]],
    ['gt', (q) => q.gt('pages', 300), [1, 4]],
    ['gte', (q) => q.gte('pages', 345), [1, 4]],
    ['lt', (q) => q.lt('pages', 200), [2]],
    ['lte', (q) => q.lte('pages', 264), [2, 3]],
    ['like', (q) => q.like('title', '%of%'), [2, 4]],
    ['ilike', (q) => q.ilike('title', 'the %'), [1, 2]],
    ['likeAllOf', (q) => q.likeAllOf('title', ['%The%', '%Heaven%']), [2]],
    ['likeAnyOf', (q) => q.likeAnyOf('title', ['Kin%', '%Sower']), [3, 4]],
    ['ilikeAllOf', (q) => q.ilikeAllOf('title', ['%the%', '%dis%']), [1]],
    ['ilikeAnyOf', (q) => q.ilikeAnyOf('title', ['kin%', 'parable%']), [3, 4]],
    ['is null', (q) => q.is('price', null), [4]],
    ['in', (q) => q.in('id', [1, 3, 99]), [1, 3]],
    ['in with commas and quotes', (q) => q.in('title', ['Kindred', 'a, "b"']), [3]],
    ['contains array', (q) => q.contains('tags', ['classic']), [1, 2]],
    ['contains json', (q) => q.contains('meta', { awards: 2 }), [1]],
    ['containedBy', (q) => q.containedBy('tags', ['classic', 'dreams', 'x']), [2]],
    ['overlaps', (q) => q.overlaps('tags', ['dreams', 'dystopia']), [2, 4]],
    ['rangeGt', (q) => q.rangeGt('ages', '[1,10]'), [1, 2, 3, 4]],
    ['rangeGte', (q) => q.rangeGte('ages', '[14,20]'), [2, 3, 4]],
    ['rangeLt', (q) => q.rangeLt('ages', '[100,120]'), [1, 2, 3, 4]],
    ['rangeLte', (q) => q.rangeLte('ages', '[1,99]'), [1, 2, 3, 4]],
    ['rangeAdjacent', (q) => q.rangeAdjacent('ages', '[1,12)'), [1]],
    ['textSearch', (q) => q.textSearch('search', 'heaven'), [2]],
    ['textSearch websearch', (q) => q.textSearch('search', 'parable -kindred', { type: 'websearch', config: 'english' }), [4]],
    ['textSearch plain', (q) => q.textSearch('search', 'lathe heaven', { type: 'plain', config: 'english' }), [2]],
    ['textSearch phrase', (q) => q.textSearch('search', 'parable of the sower', { type: 'phrase', config: 'english' }), [4]],
    ['match', (q) => q.match({ author_id: 1, pages: 184 }), [2]],
    ['not', (q) => q.not('price', 'is', null), [1, 2, 3]],
    ['or', (q) => q.or('pages.lt.200,title.eq.Kindred'), [2, 3]],
    ['or with nested and', (q) => q.or('and(author_id.eq.1,pages.gt.300),id.eq.4'), [1, 4]],
    ['filter', (q) => q.filter('pages', 'in', '(184,264)'), [2, 3]],
    ['json path filter', (q) => q.eq('meta->>series', 'Parable'), [4]],
  ]
  for (const [name, apply, expected] of cases) {
    it(name, async () => {
      const { data, error } = await apply(anonClient().from('compat_books').select('id')).order('id')
      expect(error).toBeNull()
      expect(ids(data)).toEqual(expected)
    })
  }
})

describe('order, range, count, single', () => {
  it('orders with nulls first or last', async () => {
    const supabase = anonClient()
    const last = await supabase.from('compat_books').select('id').order('price', { ascending: true, nullsFirst: false })
    expect(ids(last.data)).toEqual([3, 2, 1, 4])
    const first = await supabase.from('compat_books').select('id').order('price', { ascending: false, nullsFirst: true })
    expect(ids(first.data)).toEqual([4, 1, 2, 3])
  })

  it('pages with range and counts exactly, also with head', async () => {
    const supabase = anonClient()
    const page = await supabase.from('compat_books').select('id', { count: 'exact' }).order('id').range(1, 2)
    expect(page.error).toBeNull()
    expect(ids(page.data)).toEqual([2, 3])
    expect(page.count).toBe(4)
    expect(page.status).toBe(206)
    const head = await supabase.from('compat_books').select('*', { count: 'exact', head: true }).eq('author_id', 1)
    expect(head.count).toBe(2)
    expect(head.data).toBeNull()
    const planned = await supabase.from('compat_books').select('id', { count: 'planned' }).limit(1)
    expect(typeof planned.count).toBe('number')
  })

  it('single and maybeSingle', async () => {
    const supabase = anonClient()
    const one = await supabase.from('compat_books').select('title').eq('id', 3).single()
    expect(one.data).toEqual({ title: 'Kindred' })
    const none = await supabase.from('compat_books').select('title').eq('id', 99).single()
    expect(none.error?.code).toBe('PGRST116')
    expect(none.status).toBe(406)
    const many = await supabase.from('compat_books').select('title').single()
    expect(many.error?.code).toBe('PGRST116')
    const maybe = await supabase.from('compat_books').select('title').eq('id', 99).maybeSingle()
    expect(maybe.error).toBeNull()
    expect(maybe.data).toBeNull()
  })

  it('reports unknown columns and relationships with PostgREST codes', async () => {
    const supabase = anonClient()
    const column = await supabase.from('compat_books').select('nope')
    expect(column.error?.code).toBe('42703')
    expect(column.status).toBe(400)
    const relation = await supabase.from('compat_books').select('id, compat_notes(body)')
    expect(relation.error?.code).toBe('PGRST200')
    const table = await supabase.from('compat_nothing').select('*')
    expect(table.error?.code).toBe('PGRST205')
    expect(table.status).toBe(404)
  })
})

describe('writes', () => {
  it('inserts, upserts, updates and deletes with select', async () => {
    const supabase = serviceClient()
    const inserted = await supabase
      .from('compat_books')
      .insert([{ id: 10, author_id: 3, title: 'First', pages: 10 }, { id: 11, author_id: 3, title: 'Second', pages: 20 }])
      .select('id, title, compat_authors(name)')
    expect(inserted.error).toBeNull()
    expect(inserted.status).toBe(201)
    // Row order of a write's representation is not promised (as in PostgREST).
    expect(inserted.data?.sort((a, b) => a.id - b.id)).toEqual([
      { id: 10, title: 'First', compat_authors: { name: 'Nobody' } },
      { id: 11, title: 'Second', compat_authors: { name: 'Nobody' } },
    ])

    const duplicate = await supabase.from('compat_books').insert({ id: 10, title: 'Again' })
    expect(duplicate.error?.code).toBe('23505')
    expect(duplicate.status).toBe(409)

    const upserted = await supabase
      .from('compat_books')
      .upsert([{ id: 10, title: 'First, revised', pages: 11 }, { id: 12, title: 'Third', pages: 30 }])
      .select('id, title')
      .order('id')
    expect(upserted.error).toBeNull()
    expect(upserted.data).toEqual([{ id: 10, title: 'First, revised' }, { id: 12, title: 'Third' }])

    const ignored = await supabase
      .from('compat_books')
      .upsert({ id: 12, title: 'Not applied' }, { ignoreDuplicates: true })
      .select()
    expect(ignored.data).toEqual([])

    const updated = await supabase.from('compat_books').update({ pages: 99 }).in('id', [10, 11]).select('id, pages')
    expect(updated.data?.sort((a, b) => a.id - b.id)).toEqual([{ id: 10, pages: 99 }, { id: 11, pages: 99 }])

    const counted = await supabase.from('compat_books').delete({ count: 'exact' }).gte('id', 10)
    expect(counted.error).toBeNull()
    expect(counted.count).toBe(3)
    const left = await supabase.from('compat_books').select('id').gte('id', 10)
    expect(left.data).toEqual([])
  })

  it('keeps each user to their own rows under row-level security', async () => {
    const alice = browserClient()
    const bob = browserClient()
    for (const [client, tag] of [[alice, 'alice'], [bob, 'bob']] as const) {
      const { error } = await client.auth.signUp({ email: uniqueEmail(tag), password: 'a-good-password' })
      expect(error).toBeNull()
    }
    // Auto-confirm is off: confirm both directly, then sign in.
    await sql("update auth.users set email_confirmed_at = now() where email like 'alice-%' or email like 'bob-%'")
    const signIn = async (client: typeof alice, tag: string) => {
      const rows = await sql<{ email: string }>('select email from auth.users where email like $1 order by created_at desc limit 1', [`${tag}-%`])
      const { error } = await client.auth.signInWithPassword({ email: rows[0].email, password: 'a-good-password' })
      expect(error).toBeNull()
    }
    await signIn(alice, 'alice')
    await signIn(bob, 'bob')

    const written = await alice.from('compat_notes').insert({ body: 'from alice' }).select('body').single()
    expect(written.data).toEqual({ body: 'from alice' })
    expect((await alice.from('compat_notes').select('body')).data).toEqual([{ body: 'from alice' }])
    expect((await bob.from('compat_notes').select('body')).data).toEqual([])
    const stolen = await bob.from('compat_notes').update({ body: 'from bob' }).eq('body', 'from alice').select()
    expect(stolen.data).toEqual([])
    const anon = await anonClient().from('compat_notes').insert({ body: 'anon' })
    expect(anon.error?.code).toBe('42501')
    expect(anon.status).toBe(401)
    const forged = await bob.from('compat_notes').insert({ body: 'forged', owner: (await alice.auth.getUser()).data.user!.id })
    expect(forged.error?.code).toBe('42501')
    expect(forged.status).toBe(403)
  })
})

describe('rpc', () => {
  it('calls scalar, set-returning and failing functions', async () => {
    const supabase = anonClient()
    const sum = await supabase.rpc('compat_add', { a: 2, b: 3 })
    expect(sum.data).toBe(5)
    const viaGet = await supabase.rpc('compat_add', { a: 4, b: 5 }, { get: true })
    expect(viaGet.data).toBe(9)
    const longer = await supabase.rpc('compat_books_longer_than', { min_pages: 250 }).select('id').order('id')
    expect(ids(longer.data as { id: number }[])).toEqual([1, 3, 4])
    const filtered = await supabase.rpc('compat_books_longer_than', { min_pages: 250 }).eq('author_id', 2).select('id')
    expect(ids(filtered.data as { id: number }[]).sort()).toEqual([3, 4])
    const counted = await supabase.rpc('compat_books_longer_than', { min_pages: 0 }, { count: 'exact', head: true })
    expect(counted.count).toBe(4)
    const failed = await supabase.rpc('compat_fail', { message: 'nope' })
    expect(failed.error?.code).toBe('P0001')
    expect(failed.error?.message).toBe('nope')
    expect(failed.status).toBe(400)
    const missing = await supabase.rpc('compat_missing', {})
    expect(missing.error?.code).toBe('PGRST202')
    expect(missing.status).toBe(404)
  })
})

// A table whose id defaults to uuid_generate_v4(), as the platform's
// migrations write them, takes inserts from the API roles (issue 43).
describe('uuid_generate_v4() defaults', () => {
  beforeAll(async () => {
    await sql(`
      create table public.compat_uuid_notes (
        id uuid primary key default uuid_generate_v4(),
        other uuid not null default extensions.uuid_generate_v4(),
        body text not null);
      alter table public.compat_uuid_notes enable row level security;
      create policy "anyone writes" on public.compat_uuid_notes for insert with check (true);
      create policy "anyone reads" on public.compat_uuid_notes for select using (true);
      notify pgrst, 'reload schema';
    `)
    for (let i = 0; i < 100; i++) {
      const { error } = await anonClient().from('compat_uuid_notes').select('id').limit(1)
      if (!error) return
      await new Promise((r) => setTimeout(r, 100))
    }
    throw new Error('the schema cache never saw compat_uuid_notes')
  })

  it('inserts as anon and as a signed-in user', async () => {
    const user = browserClient()
    const email = uniqueEmail('uuid')
    await user.auth.signUp({ email, password: 'a-good-password' })
    await sql('update auth.users set email_confirmed_at = now() where email = $1', [email])
    expect((await user.auth.signInWithPassword({ email, password: 'a-good-password' })).error).toBeNull()
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
    for (const [who, client] of [['anon', anonClient()], ['user', user]] as const) {
      const { data, error } = await client.from('compat_uuid_notes').insert({ body: who }).select().single()
      expect(error).toBeNull()
      expect(data!.body).toBe(who)
      expect(data!.id).toMatch(uuid)
      expect(data!.other).toMatch(uuid)
    }
    // pgcrypto's wrappers stay the owner's
    const crypt = await anonClient().rpc('gen_salt', { kind: 'bf' })
    expect(crypt.data).toBeNull()
    expect(crypt.error?.code).toBe('42501')
  })
})
