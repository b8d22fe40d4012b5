#ifndef PARLEY_VIPS_H
#define PARLEY_VIPS_H

#include <stddef.h>

/// An encoded image libvips made: its bytes (freed with parley_vips_free) and its size in pixels.
typedef struct {
    void *bytes;
    size_t length;
    int width;
    int height;
} parley_vips_image;

/// Opens libvips (libvips.so.42) and starts it for Parley: no operation cache (it would keep callers' buffers), one
/// worker thread per call, and only the loaders libvips marks as safe for untrusted input. Returns 0 on success, -1
/// when libvips 8 is not installed or does not start; call it once, before the others.
int parley_vips_start(void);

/// Decodes `input` (its first frame), shrinks it to fit a `max_edge` square (never enlarging, upright after EXIF
/// orientation) and encodes it as JPEG at `jpeg_quality` (transparency flattened onto white) or, when `as_jpeg` is 0,
/// as PNG; metadata is stripped. Returns 0 and fills `out`, or -1 when libvips cannot decode or encode the image.
int parley_vips_shrink(const void *input, size_t length, int max_edge, int as_jpeg, int jpeg_quality,
                       parley_vips_image *out);

/// Frees the bytes of an image parley_vips_shrink made.
void parley_vips_free(void *bytes);

#endif
