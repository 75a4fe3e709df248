/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Compatibility header, installed so that applications that include it still compile: the
 * tracks meta is declared in gstkeypointstracksmeta.h, which new code includes instead. */
#pragma once

#include "gstkeypointstracksmeta.h"
