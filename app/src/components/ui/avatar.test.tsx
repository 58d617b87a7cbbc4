import { beforeEach, describe, expect, it } from 'vitest'
import { render, screen } from '@testing-library/react'
import { FakeSupabase } from '@/testing/fake-supabase'
import { setFake } from '@/testing/supabase-module'
import { Avatar } from './avatar'

describe('Avatar', () => {
  beforeEach(() => {
    setFake(new FakeSupabase())
  })

  it('declares its size in CSS pixels and loads lazily', () => {
    render(
      <>
        <Avatar url="u1/me.jpg" name="Maya Chen" size="sm" />
        <Avatar url="u2/me.jpg" name="Leo Martins" size="xl" />
      </>,
    )
    const small = screen.getByRole('img', { name: "Maya Chen's avatar" })
    expect(small).toHaveAttribute('width', '32')
    expect(small).toHaveAttribute('height', '32')
    expect(small).toHaveAttribute('loading', 'lazy')
    expect(small.getAttribute('src')).toContain('width=96&height=96')
    const large = screen.getByRole('img', { name: "Leo Martins's avatar" })
    expect(large).toHaveAttribute('width', '112')
    expect(large).toHaveAttribute('height', '112')
    expect(large.getAttribute('src')).toContain('width=224&height=224')
  })
})
