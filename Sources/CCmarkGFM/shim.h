#include <cmark-gfm.h>
#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm-extension_api.h>
#include <stdint.h>

/// The layout of cmark-gfm 0.29's `cmark_chunk` (chunk.h, which is not installed): an inline parser's subject.
typedef struct {
    unsigned char *data;
    int32_t len;
    int32_t alloc;
} parley_cmark_chunk;

/// The bytes of the paragraph (or other inline container) an inline parser is reading.
static inline const unsigned char *parley_inline_subject_bytes(cmark_inline_parser *parser) {
    return ((const parley_cmark_chunk *)cmark_inline_parser_get_chunk(parser))->data;
}

/// The length of the subject `parley_inline_subject_bytes` points to.
static inline int32_t parley_inline_subject_length(cmark_inline_parser *parser) {
    return ((const parley_cmark_chunk *)cmark_inline_parser_get_chunk(parser))->len;
}
