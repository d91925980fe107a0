// SPDX-License-Identifier: GPL-2.0
/*
 * klp-fixup MODULE.ko
 *
 * Finishes a livepatch module whose references to kernel-private symbols
 * were assembled as undefined symbols named ".klp.sym.OBJ.NAME,POS" (see
 * bhtune_ksym.c), turning them into the form the kernel's module loader and
 * livepatch expect (Documentation/livepatch/module-elf-format.rst):
 *
 *  - every ".klp.sym.*" symbol gets st_shndx = SHN_LIVEPATCH, so the module
 *    loader leaves it to livepatch instead of failing on it;
 *  - every SHT_RELA section whose relocations all refer to such symbols is
 *    renamed ".klp.rela.OBJ<target section>" and flagged
 *    SHF_ALLOC | SHF_RELA_LIVEPATCH, so the loader resolves it through
 *    kallsyms when the module loads, instead of as an ordinary relocation.
 *
 * A relocation section mixing both kinds, or relocations to ".klp.sym."
 * symbols of different objects, is an error: the kernel would reject it.
 * Running it twice is harmless.  x86_64 (ELF64, little endian) only, like
 * the rest of bhtune.  It is a build tool: one function, exits on error.
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SHN_LIVEPATCH
#define SHN_LIVEPATCH		0xff20
#endif
#ifndef SHF_RELA_LIVEPATCH
#define SHF_RELA_LIVEPATCH	0x00100000
#endif

#define KLP_SYM		".klp.sym."
#define KLP_RELA	".klp.rela."
#define OBJ_LEN		56	/* MODULE_NAME_LEN on x86_64 */

static const char *path;

static void die(const char *msg)
{
	fprintf(stderr, "klp-fixup: %s: %s\n", path, msg);
	exit(1);
}

static unsigned char *read_file(size_t *size)
{
	unsigned char *buf;
	FILE *f = fopen(path, "rb");
	long n = -1;

	if (f && !fseek(f, 0, SEEK_END))
		n = ftell(f);
	if (n < 0 || fseek(f, 0, SEEK_SET))
		die(strerror(errno));
	/* room for a grown copy of .shstrtab, which is part of the file */
	buf = malloc(2 * (size_t)n + 4096);
	if (!buf || fread(buf, 1, n, f) != (size_t)n)
		die("cannot read");
	fclose(f);
	*size = n;
	return buf;
}

static void write_file(const unsigned char *buf, size_t size)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.klp-fixup", path);
	f = fopen(tmp, "wb");
	if (!f || fwrite(buf, 1, size, f) != size || fclose(f) ||
	    rename(tmp, path))
		die(strerror(errno));
}

/* ".klp.sym.OBJ.NAME,POS" -> OBJ, or 0 if @name is not one. */
static int klp_obj(const char *name, char *obj)
{
	const char *p = name + strlen(KLP_SYM), *dot;

	if (strncmp(name, KLP_SYM, strlen(KLP_SYM)))
		return 0;
	dot = strchr(p, '.');
	if (!dot || dot == p || dot - p >= OBJ_LEN || !strchr(dot, ','))
		die("malformed .klp.sym. symbol name");
	memcpy(obj, p, dot - p);
	obj[dot - p] = '\0';
	return 1;
}

int main(int argc, char **argv)
{
	unsigned char *buf;
	size_t size, strsz, newsz;
	Elf64_Ehdr *eh;
	Elf64_Shdr *sh, *symsec = NULL, *shstr;
	Elf64_Sym *syms;
	const char *strtab;
	char *newstr;
	unsigned int i, nsyms, converted = 0, marked = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: klp-fixup MODULE.ko\n");
		return 2;
	}
	path = argv[1];
	buf = read_file(&size);
	eh = (Elf64_Ehdr *)buf;
	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB || eh->e_type != ET_REL ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) || !eh->e_shnum ||
	    eh->e_shstrndx >= eh->e_shnum ||
	    eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > size)
		die("not a relocatable x86_64 ELF object");
	sh = (Elf64_Shdr *)(buf + eh->e_shoff);
	shstr = &sh[eh->e_shstrndx];
	for (i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type == SHT_NOBITS)
			continue;
		if (sh[i].sh_offset + sh[i].sh_size > size)
			die("section outside the file");
		if (sh[i].sh_type == SHT_SYMTAB) {
			if (symsec)
				die("two symbol tables");
			symsec = &sh[i];
		}
	}
	if (!symsec || symsec->sh_link >= eh->e_shnum)
		die("no symbol table");
	syms = (Elf64_Sym *)(buf + symsec->sh_offset);
	nsyms = symsec->sh_size / sizeof(*syms);
	strtab = (const char *)buf + sh[symsec->sh_link].sh_offset;

	/* New section names go into a copy of .shstrtab at the file's end. */
	strsz = shstr->sh_size;
	newstr = malloc(strsz + 4096);
	if (!newstr)
		die("out of memory");
	memcpy(newstr, buf + shstr->sh_offset, strsz);
	newsz = strsz;

	for (i = 0; i < eh->e_shnum; i++) {
		Elf64_Rela *rela;
		const char *target;
		char obj[OBJ_LEN], first[OBJ_LEN] = "";
		unsigned int j, n, klp = 0;

		if (sh[i].sh_type != SHT_RELA)
			continue;
		rela = (Elf64_Rela *)(buf + sh[i].sh_offset);
		n = sh[i].sh_size / sizeof(*rela);
		for (j = 0; j < n; j++) {
			unsigned int s = ELF64_R_SYM(rela[j].r_info);

			if (s >= nsyms)
				die("relocation to a symbol out of range");
			if (!klp_obj(strtab + syms[s].st_name, obj))
				continue;
			if (klp && strcmp(obj, first))
				die("one relocation section refers to two objects");
			memcpy(first, obj, sizeof(first));
			klp++;
		}
		if (!klp)
			continue;
		if (klp != n)
			die("a relocation section mixes .klp.sym. and ordinary symbols; keep the .klp.sym. references in a section of their own");
		sh[i].sh_flags |= SHF_ALLOC | SHF_RELA_LIVEPATCH;
		if (!strncmp((char *)buf + shstr->sh_offset + sh[i].sh_name,
			     KLP_RELA, strlen(KLP_RELA)))
			continue;	/* done before */
		if (sh[i].sh_info >= eh->e_shnum)
			die("relocation section without a target");
		target = (char *)buf + shstr->sh_offset +
			 sh[sh[i].sh_info].sh_name;
		if (newsz + strlen(KLP_RELA) + strlen(first) + strlen(target) +
		    1 > strsz + 4096)
			die("section names too long");
		sh[i].sh_name = newsz;
		newsz += sprintf(newstr + newsz, "%s%s%s", KLP_RELA, first,
				 target) + 1;
		converted++;
	}

	for (i = 0; i < nsyms; i++) {
		char obj[OBJ_LEN];

		if (!klp_obj(strtab + syms[i].st_name, obj))
			continue;
		if (syms[i].st_shndx != SHN_UNDEF &&
		    syms[i].st_shndx != SHN_LIVEPATCH)
			die("a .klp.sym. symbol is defined in the module");
		syms[i].st_shndx = SHN_LIVEPATCH;
		marked++;
	}

	if (newsz != strsz) {
		memcpy(buf + size, newstr, newsz);
		shstr->sh_offset = size;
		shstr->sh_size = newsz;
		size += newsz;
	}
	write_file(buf, size);
	printf("klp-fixup: %s: %u relocation section(s) converted, %u symbol(s) marked SHN_LIVEPATCH\n",
	       path, converted, marked);
	return 0;
}
