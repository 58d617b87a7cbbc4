import { describe, expect, it } from 'vitest'
import { render, screen } from '@testing-library/react'
import { ApiError } from '@/lib/api'
import { SqlError } from './sql-error'

describe('SqlError', () => {
  it('shows the code, the message and a caret under the position', () => {
    const query = 'select 1;\nselect * from nope'
    const error = new ApiError(400, 'sql_error', 'relation "nope" does not exist', {
      error: 'sql_error',
      code: '42P01',
      position: query.indexOf('nope') + 1,
      detail: null,
      hint: 'Check the name.',
    })
    render(<SqlError error={error} query={query} />)
    const alert = screen.getByRole('alert')
    expect(alert).toHaveTextContent('42P01')
    expect(alert).toHaveTextContent('relation "nope" does not exist')
    expect(alert).toHaveTextContent('At line 2, column 15')
    expect(alert).toHaveTextContent('Hint: Check the name.')
    expect(screen.getByTestId('sql-error-caret').textContent).toBe(' '.repeat(14) + '^')
    expect(screen.getByLabelText('The query at line 2, column 15')).toHaveTextContent('select * from nope')
  })

  it('shows no location without a position', () => {
    render(<SqlError error={new ApiError(400, 'sql_error', 'syntax error at end of input', { code: '42601', position: null })} query="select" />)
    expect(screen.getByRole('alert')).toHaveTextContent('42601')
    expect(screen.queryByTestId('sql-error-caret')).toBeNull()
  })
})
