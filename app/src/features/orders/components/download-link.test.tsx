import { describe, expect, it } from 'vitest'
import { render, screen } from '@testing-library/react'
import { DownloadFileLink } from './download-link'

describe('DownloadFileLink', () => {
  it('downloads a file of this site in place: no new tab, the page stays', () => {
    const file = `${window.location.origin}/storage/v1/object/sign/template-files/u/r/kit.zip?token=t&download=kit.zip`
    render(<DownloadFileLink href={file} />)
    const link = screen.getByRole('link', { name: 'Download File' })
    expect(link).toHaveAttribute('href', file)
    expect(link).toHaveAttribute('download')
    expect(link).not.toHaveAttribute('target')
  })

  it('opens a workspace-app link in a new tab instead of replacing the page', () => {
    render(<DownloadFileLink href="https://workspace.example/t/1" />)
    const link = screen.getByRole('link', { name: 'Download File' })
    expect(link).toHaveAttribute('target', '_blank')
    expect(link).toHaveAttribute('rel', 'noopener noreferrer')
    expect(link).not.toHaveAttribute('download')
  })

  it('never draws a link that is not a web link', () => {
    render(<DownloadFileLink href="javascript:alert(1)" />)
    expect(screen.queryByRole('link')).not.toBeInTheDocument()
    expect(screen.getByRole('alert')).toBeInTheDocument()
  })
})
