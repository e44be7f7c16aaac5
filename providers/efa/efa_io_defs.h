/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * EFA device descriptor formats, as the device reads and writes them.
 */

#ifndef EFA_IO_DEFS_H
#define EFA_IO_DEFS_H

/* A send WQE: a 32-byte meta descriptor and 32 bytes of buffer
 * descriptors or inline payload.  The LLQ holds max_llq_size / 64 of them.
 */
#define EFA_IO_TX_WQE_SIZE 64
#define EFA_IO_TX_DESC_INLINE_MAX_SIZE 32

#endif /* EFA_IO_DEFS_H */
