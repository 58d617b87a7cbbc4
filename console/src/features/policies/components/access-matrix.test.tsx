import { describe, expect, it } from 'vitest'
import { render, screen } from '@testing-library/react'
import { MatrixCell } from './access-matrix'

describe('MatrixCell', () => {
  it('says the access in words, with the policies and the reason', () => {
    render(
      <table>
        <tbody>
          <tr>
            <MatrixCell cell={{ access: 'policy', policies: ['templates are public'], reason: 'Rows as the policies allow.' }} />
            <MatrixCell cell={{ access: 'none', policies: [], reason: 'No privilege.' }} />
          </tr>
        </tbody>
      </table>,
    )
    const [policy, none] = screen.getAllByRole('cell')
    expect(policy).toHaveTextContent('policy (by policy)')
    expect(policy).toHaveTextContent('templates are public')
    expect(policy).toHaveTextContent('Rows as the policies allow.')
    expect(none).toHaveTextContent('none')
  })
})
