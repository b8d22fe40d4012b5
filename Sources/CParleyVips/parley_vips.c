#include <dlfcn.h>
#include <stddef.h>
#include "parley_vips.h"

/// libvips' image, only ever handled by pointer here.
typedef struct VipsImage VipsImage;

/// The libvips and GLib calls Parley makes, looked up in libvips.so.42 at first use, so that a server that never fits
/// an image never loads libvips and the hundred libraries it links. The prototypes are libvips 8's (stable ABI 42);
/// `gboolean` is `int`, and the option arguments are NULL-terminated name and value pairs.
static struct {
    int (*version)(int flag);
    int (*init)(const char *argv0);
    void (*cache_set_max)(int max);
    void (*concurrency_set)(int concurrency);
    void (*block_untrusted_set)(int state);
    int (*thumbnail_buffer)(void *buf, size_t len, VipsImage **out, int width, ...);
    int (*image_hasalpha)(VipsImage *image);
    int (*flatten)(VipsImage *in, VipsImage **out, ...);
    void *(*array_double_new)(const double *array, int n);
    void (*area_unref)(void *area);
    int (*jpegsave_buffer)(VipsImage *in, void **buf, size_t *len, ...);
    int (*pngsave_buffer)(VipsImage *in, void **buf, size_t *len, ...);
    int (*image_get_width)(const VipsImage *image);
    int (*image_get_height)(const VipsImage *image);
    void (*error_clear)(void);
    void *(*object_ref)(void *object);
    void (*object_unref)(void *object);
    void (*free)(void *memory);
} vips;

/// VIPS_SIZE_DOWN of libvips' VipsSize: only ever shrink.
static const int size_down = 2;

/// Looks `name` up in `library` into `slot`; returns 0 when found.
static int find(void *library, const char *name, void **slot) {
    *slot = dlsym(library, name);
    return *slot == NULL;
}

int parley_vips_start(void) {
    void *library = dlopen("libvips.so.42", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        return -1;
    }
    int missing = find(library, "vips_version", (void **)&vips.version)
        | find(library, "vips_init", (void **)&vips.init)
        | find(library, "vips_cache_set_max", (void **)&vips.cache_set_max)
        | find(library, "vips_concurrency_set", (void **)&vips.concurrency_set)
        | find(library, "vips_block_untrusted_set", (void **)&vips.block_untrusted_set)
        | find(library, "vips_thumbnail_buffer", (void **)&vips.thumbnail_buffer)
        | find(library, "vips_image_hasalpha", (void **)&vips.image_hasalpha)
        | find(library, "vips_flatten", (void **)&vips.flatten)
        | find(library, "vips_array_double_new", (void **)&vips.array_double_new)
        | find(library, "vips_area_unref", (void **)&vips.area_unref)
        | find(library, "vips_jpegsave_buffer", (void **)&vips.jpegsave_buffer)
        | find(library, "vips_pngsave_buffer", (void **)&vips.pngsave_buffer)
        | find(library, "vips_image_get_width", (void **)&vips.image_get_width)
        | find(library, "vips_image_get_height", (void **)&vips.image_get_height)
        | find(library, "vips_error_clear", (void **)&vips.error_clear)
        | find(library, "g_object_ref", (void **)&vips.object_ref)
        | find(library, "g_object_unref", (void **)&vips.object_unref)
        | find(library, "g_free", (void **)&vips.free);
    if (missing || vips.version(0) != 8 || vips.init("parley") != 0) {
        return -1;
    }
    vips.cache_set_max(0);
    vips.concurrency_set(1);
    vips.block_untrusted_set(1);
    return 0;
}

/// `image` with its alpha flattened onto white, for JPEG; `image` itself (with a new reference) when it has none.
static int opaque(VipsImage *image, VipsImage **out) {
    if (!vips.image_hasalpha(image)) {
        *out = vips.object_ref(image);
        return 0;
    }
    double white[] = {255.0};
    void *background = vips.array_double_new(white, 1);
    int failed = vips.flatten(image, out, "background", background, NULL);
    vips.area_unref(background);
    return failed;
}

int parley_vips_shrink(const void *input, size_t length, int max_edge, int as_jpeg, int jpeg_quality,
                       parley_vips_image *out) {
    VipsImage *thumbnail = NULL;
    if (vips.thumbnail_buffer((void *)input, length, &thumbnail, max_edge, "height", max_edge,
                              "size", size_down, NULL) != 0) {
        vips.error_clear();
        return -1;
    }
    VipsImage *saved = NULL;
    void *bytes = NULL;
    size_t size = 0;
    int failed;
    if (as_jpeg) {
        failed = opaque(thumbnail, &saved)
            || vips.jpegsave_buffer(saved, &bytes, &size, "Q", jpeg_quality, "strip", 1, "optimize_coding", 1, NULL);
    } else {
        saved = vips.object_ref(thumbnail);
        failed = vips.pngsave_buffer(saved, &bytes, &size, "strip", 1, NULL);
    }
    if (failed == 0) {
        out->bytes = bytes;
        out->length = size;
        out->width = vips.image_get_width(saved);
        out->height = vips.image_get_height(saved);
    } else {
        vips.error_clear();
    }
    if (saved != NULL) {
        vips.object_unref(saved);
    }
    vips.object_unref(thumbnail);
    return failed ? -1 : 0;
}

void parley_vips_free(void *bytes) {
    vips.free(bytes);
}
