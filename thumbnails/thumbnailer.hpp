#pragma once

// The thumbnailer's public face: results, the renderers of images and PDFs, the table that
// picks one by content type, and the process-wide libvips set-up.

#include "thumbnails/image_thumbnail.hpp" // IWYU pragma: export
#include "thumbnails/pdf_thumbnail.hpp"   // IWYU pragma: export
#include "thumbnails/registry.hpp"        // IWYU pragma: export
#include "thumbnails/result.hpp"          // IWYU pragma: export
#include "thumbnails/runtime.hpp"         // IWYU pragma: export
