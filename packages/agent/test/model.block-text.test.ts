import { describe, expect, it } from 'vitest'
import { omittedBlockNote, UNSUPPORTED_BLOCK } from '../src/model/omitted-block-note.js'

describe('L12.8 blocks a provider cannot take are sent as text', () => {
  it('L12.8: an embedded text resource is sent as its URI and its text, a resource link as its URI and name', () => {
    expect(
      omittedBlockNote(
        { type: 'resource', uri: 'file:///notes.md', text: '# Notes\nship friday' },
        UNSUPPORTED_BLOCK,
      ),
    ).toBe('[resource file:///notes.md]\n# Notes\nship friday')
    expect(
      omittedBlockNote(
        { type: 'resource_link', uri: 'file:///a.md', name: 'a notes file' },
        UNSUPPORTED_BLOCK,
      ),
    ).toBe('[resource link: file:///a.md (a notes file)]')
    expect(
      omittedBlockNote(
        { type: 'resource_link', uri: 'file:///a.md', name: 'file:///a.md' },
        UNSUPPORTED_BLOCK,
      ),
    ).toBe('[resource link: file:///a.md]')
  })

  it('L12.8: a blob resource, audio, an image and a block without a URI become a note that they were left out', () => {
    expect(
      omittedBlockNote(
        { type: 'resource', uri: 'file:///a.bin', mediaType: 'application/octet-stream' },
        'x',
      ),
    ).toBe('[resource block omitted: x]')
    expect(omittedBlockNote({ type: 'audio', mediaType: 'audio/wav' }, UNSUPPORTED_BLOCK)).toBe(
      '[audio block omitted: the provider cannot take this block type]',
    )
    expect(omittedBlockNote({ type: 'image', mediaType: 'image/tiff' }, 'y')).toBe(
      '[image omitted: image/tiff, y]',
    )
    expect(omittedBlockNote({ type: 'resource', text: 'no uri' }, 'z')).toBe('[resource block omitted: z]')
  })
})
