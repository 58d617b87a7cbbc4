// Preview images keep the page still and load when needed (issue 24): every
// <img> declares its size; only the page's first images load at once.
import { describe, expect, it } from 'vitest'
import { render, screen, within } from '@testing-library/react'
import { MemoryRouter } from 'react-router'
import { renderApp } from '@/testing/render'
import { marketplace, template } from '@/testing/fixtures'
import { Gallery } from './gallery'
import { TemplateCard, TemplateGrid, FIRST_ROW } from './template-card'

function imagesOf(container: HTMLElement) {
  return [...container.querySelectorAll('img')]
}

describe('template card previews', () => {
  it('declare a 16:10 size and load lazily unless eager', () => {
    const { container } = render(
      <MemoryRouter>
        <TemplateCard template={template({ id: 't-1', title: 'One' }) as never} />
        <TemplateCard template={template({ id: 't-2', title: 'Two' }) as never} eager />
      </MemoryRouter>,
    )
    const [lazy, eager] = imagesOf(container)
    for (const img of [lazy, eager]) {
      expect(img).toHaveAttribute('width', '640')
      expect(img).toHaveAttribute('height', '400')
      expect(img).toHaveAttribute('decoding', 'async')
    }
    expect(lazy).toHaveAttribute('loading', 'lazy')
    expect(lazy).not.toHaveAttribute('fetchpriority')
    expect(eager).toHaveAttribute('loading', 'eager')
    expect(eager).toHaveAttribute('fetchpriority', 'high')
  })

  it('in a grid: only the first `eager` cards load at once', () => {
    const templates = Array.from({ length: 6 }, (_, i) => template({ id: `t-${i}`, title: `T${i}` }))
    const { container } = render(
      <MemoryRouter>
        <TemplateGrid templates={templates as never} eager={2} />
      </MemoryRouter>,
    )
    expect(imagesOf(container).map((img) => img.getAttribute('loading'))).toEqual(['eager', 'eager', 'lazy', 'lazy', 'lazy', 'lazy'])
  })

  it('on Discover the first row is eager, on the home page none is', async () => {
    const templates = Array.from({ length: 6 }, (_, i) =>
      template({ id: `t-${i}`, title: `Template ${i}`, created_at: `2024-05-0${i + 1}T00:00:00Z` }),
    )
    const discover = renderApp('/discover', { tables: marketplace({ templates }) })
    await screen.findByRole('link', { name: 'Template 0' })
    const loading = imagesOf(discover.container.querySelector('main')!).map((img) => img.getAttribute('loading'))
    expect(loading).toHaveLength(6)
    expect(loading.filter((l) => l === 'eager')).toHaveLength(FIRST_ROW)
    expect(loading.slice(FIRST_ROW)).toEqual(['lazy', 'lazy'])
    discover.unmount()

    const home = renderApp('/', { tables: marketplace({ templates }) })
    await screen.findAllByRole('link', { name: 'Template 5' })
    const homeImages = imagesOf(home.container.querySelector('main')!)
    expect(homeImages.length).toBeGreaterThan(0)
    for (const img of homeImages) {
      expect(img).toHaveAttribute('loading', 'lazy')
      expect(img.getAttribute('width')).toMatch(/^\d+$/)
      expect(img.getAttribute('height')).toMatch(/^\d+$/)
    }
  })
})

describe('the gallery', () => {
  it('asks for its main image first, with its size; thumbnails wait', () => {
    render(<Gallery images={['/demo/a.svg', '/demo/b.svg']} title="Planner" />)
    const main = screen.getByRole('img', { name: 'Planner preview 1' })
    expect(main).toHaveAttribute('width', '1280')
    expect(main).toHaveAttribute('height', '800')
    expect(main).toHaveAttribute('fetchpriority', 'high')
    expect(main).not.toHaveAttribute('loading', 'lazy')
    const thumbs = imagesOf(screen.getByRole('list', { name: 'Preview images' }))
    expect(thumbs).toHaveLength(2)
    for (const img of thumbs) {
      expect(img).toHaveAttribute('width', '320')
      expect(img).toHaveAttribute('height', '200')
      expect(img).toHaveAttribute('loading', 'lazy')
    }
    expect(within(screen.getByTestId('gallery-main')).getAllByRole('img')).toHaveLength(1)
  })
})
