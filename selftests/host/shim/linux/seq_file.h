/* SPDX-License-Identifier: GPL-2.0-only */
/* shim linux/seq_file.h - printing into the test's buffer */
#ifndef SHIM_LINUX_SEQ_FILE_H
#define SHIM_LINUX_SEQ_FILE_H

#include <shim.h>

struct seq_file {
	char *buf;
	size_t size;
	size_t count;
};

void seq_printf(struct seq_file *m, const char *fmt, ...)
	__attribute__((__format__(__printf__, 2, 3)));
void seq_puts(struct seq_file *m, const char *s);
void seq_putc(struct seq_file *m, char c);

#endif /* SHIM_LINUX_SEQ_FILE_H */
