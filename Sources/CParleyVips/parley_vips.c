#include <vips/vips.h>
#include "parley_vips.h"

int parley_vips_start(void) {
    if (VIPS_INIT("parley") != 0) {
        return -1;
    }
    vips_cache_set_max(0);
    vips_concurrency_set(1);
    vips_block_untrusted_set(TRUE);
    return 0;
}

/// `image` with its alpha flattened onto white, for JPEG; `image` itself (with a new reference) when it has none.
static int opaque(VipsImage *image, VipsImage **out) {
    if (!vips_image_hasalpha(image)) {
        g_object_ref(image);
        *out = image;
        return 0;
    }
    double white[] = {255.0};
    VipsArrayDouble *background = vips_array_double_new(white, 1);
    int failed = vips_flatten(image, out, "background", background, NULL);
    vips_area_unref(VIPS_AREA(background));
    return failed;
}

int parley_vips_shrink(const void *input, size_t length, int max_edge, int as_jpeg, int jpeg_quality,
                       parley_vips_image *out) {
    VipsImage *thumbnail = NULL;
    if (vips_thumbnail_buffer((void *)input, length, &thumbnail, max_edge, "height", max_edge,
                              "size", VIPS_SIZE_DOWN, NULL) != 0) {
        vips_error_clear();
        return -1;
    }
    VipsImage *saved = NULL;
    void *bytes = NULL;
    size_t size = 0;
    int failed;
    if (as_jpeg) {
        failed = opaque(thumbnail, &saved)
            || vips_jpegsave_buffer(saved, &bytes, &size, "Q", jpeg_quality, "strip", TRUE,
                                    "optimize_coding", TRUE, NULL);
    } else {
        g_object_ref(thumbnail);
        saved = thumbnail;
        failed = vips_pngsave_buffer(saved, &bytes, &size, "strip", TRUE, NULL);
    }
    if (failed == 0) {
        out->bytes = bytes;
        out->length = size;
        out->width = vips_image_get_width(saved);
        out->height = vips_image_get_height(saved);
    } else {
        vips_error_clear();
    }
    if (saved != NULL) {
        g_object_unref(saved);
    }
    g_object_unref(thumbnail);
    return failed ? -1 : 0;
}

void parley_vips_free(void *bytes) {
    g_free(bytes);
}
