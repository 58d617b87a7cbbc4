import { describe, expect, it, vi } from 'vitest'
import { screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import type { Relation } from '@/lib/schema'
import { renderWithClient } from '@/testing/render'
import { DataGrid } from './data-grid'

const templates: Relation = {
  schema: 'public',
  name: 'templates',
  kind: 'table',
  primary_key: ['id'],
  columns: [
    { name: 'id', type: 'uuid', pretty_type: 'uuid', ts_type: 'string', nullable: false, default: 'gen_random_uuid()', generated: false },
    { name: 'user_id', type: 'uuid', pretty_type: 'uuid', ts_type: 'string', nullable: false, default: null, generated: false },
    { name: 'title', type: 'text', pretty_type: 'character varying(30)', ts_type: 'string', nullable: true, default: null, generated: false },
  ],
  foreign_keys: [{ name: 'templates_user_id_fkey', columns: ['user_id'], references: { schema: 'public', table: 'profiles', columns: ['id'] } }],
}

describe('DataGrid', () => {
  it('shows each column with its type, links foreign keys, and sorts by a header', async () => {
    const onSort = vi.fn()
    const onEdit = vi.fn()
    const row = { id: 't1', user_id: 'u1', title: null }
    renderWithClient(<DataGrid relation={templates} rows={[row]} order={{ column: 'title', ascending: true }} onSort={onSort} onEdit={onEdit} />)
    const header = screen.getByRole('button', { name: /title/ })
    expect(header).toHaveTextContent('character varying(30)')
    expect(header).toHaveAttribute('title', 'character varying(30) · TypeScript: string | null')
    expect(screen.getByRole('columnheader', { name: /title/ })).toHaveAttribute('aria-sort', 'ascending')
    expect(screen.getByRole('link', { name: 'u1' })).toHaveAttribute('href', '/tables?schema=public&table=profiles&f=id.eq.u1')
    expect(screen.getByText('NULL')).toBeInTheDocument()
    await userEvent.click(header)
    expect(onSort).toHaveBeenCalledWith('title')
    await userEvent.click(screen.getByRole('button', { name: 'Edit row t1' }))
    expect(onEdit).toHaveBeenCalledWith(row)
  })
})
