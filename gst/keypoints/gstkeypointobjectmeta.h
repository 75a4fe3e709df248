/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Compatibility header, installed so that applications that include it still compile: the
 * object meta is declared in gstkeypointsobjectmeta.h, which new code includes instead. */
#pragma once

#include "gstkeypointsobjectmeta.h"
