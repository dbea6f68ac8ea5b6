/* perfcheck(1) and the bash completion, written from the commands' own
 * --help texts (pc_cli_docs.h), so that neither can drift from --help: the
 * build runs `perfcheck help --man FILE` and `perfcheck help
 * --bash-completion FILE` (tools/CMakeLists.txt) and installs what they
 * write. */
#include "pc_cli_docs.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* One line of text as roff: backslashes doubled as \e, a leading '.' or
 * '\'' kept from being a request, '-' as \- (an ASCII hyphen-minus in
 * options). */
static void pc_roff_line(FILE *f, const char *s, size_t n) {
  if (n && (s[0] == '.' || s[0] == '\'')) fputs("\\&", f);
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '\\')
      fputs("\\e", f);
    else if (s[i] == '-')
      fputs("\\-", f);
    else
      fputc(s[i], f);
  }
  fputc('\n', f);
}

static void pc_roff_block(FILE *f, const char *text) {
  fputs(".nf\n", f);
  for (const char *p = text; *p;) {
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    pc_roff_line(f, p, n);
    if (!nl) break;
    p = nl + 1;
  }
  fputs(".fi\n", f);
}

int pc_cli_write_man(FILE *f, const char *version, const char *main_usage, const pc_cli_command *cmds, size_t n) {
  fprintf(f, ".\\\" perfcheck(1), written by `perfcheck help --man` from the --help texts: do not edit.\n");
  fprintf(f, ".TH PERFCHECK 1 \"\" \"perfcheck %s\" \"User Commands\"\n", version);
  fputs(".SH NAME\nperfcheck \\- why CUDA code is slow, kernel by kernel, in the order an expert asks\n", f);
  fputs(".SH SYNOPSIS\n.B perfcheck\n.I command\n[\\fIoptions\\fR] [\\fIarguments\\fR]\n", f);
  for (size_t i = 0; i < n; i++) fprintf(f, ".br\n.B perfcheck %s\n[\\fIoptions\\fR]\n", cmds[i].name);
  fputs(".SH DESCRIPTION\n", f);
  pc_roff_block(f, main_usage);
  fputs(".SH COMMANDS\nEach command's text is what `perfcheck COMMAND --help` prints.\n", f);
  for (size_t i = 0; i < n; i++) {
    fprintf(f, ".SS %s\n", cmds[i].name);
    pc_roff_line(f, cmds[i].summary, strlen(cmds[i].summary));
    fputs(".PP\n", f);
    pc_roff_block(f, cmds[i].usage);
  }
  fputs(".SH ENVIRONMENT\n"
        "The PERFCHECK_* variables that configure a program run under perfcheck are named with the\n"
        "options of \\fBperfcheck run\\fR above; PERFCHECK_VERBOSE=1 prints each warning on stderr as\n"
        "well as in the report (\\fB\\-v\\fR).  The README lists every variable with its values.\n",
        f);
  fputs(".SH EXIT STATUS\n0 done; 2 bad input or usage (the message names the problem); 1 other failures.\n"
        "\\fBperfcheck run\\fR exits with the program's status; \\fBcheck\\fR and \\fBdiff\\fR with 1 when\n"
        "something does not hold or got worse.\n",
        f);
  fputs(".SH SEE ALSO\n\\fBncu\\fR(1), \\fBnsys\\fR(1); include/perfcheck.h for the library.\n", f);
  return ferror(f) ? -1 : 0;
}

/* The options of a --help text: the tokens "-x" and "--long" at the start
 * of its option lines (a line whose first non-blank is '-'), up to the
 * column where two blanks begin the description.  Written space-separated. */
static void pc_options_of(FILE *f, const char *usage) {
  for (const char *p = usage; *p;) {
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    size_t i = 0;
    while (i < n && p[i] == ' ') i++;
    if (i > 0 && i < n && p[i] == '-') {
      /* The option column ends at the first run of two blanks after a token. */
      size_t end = i;
      while (end < n && !(p[end] == ' ' && end + 1 < n && p[end + 1] == ' ')) end++;
      for (size_t j = i; j < end;) {
        while (j < end && (p[j] == ' ' || p[j] == ',')) j++;
        size_t k = j;
        while (k < end && p[k] != ' ' && p[k] != ',' && p[k] != '=') k++;
        if (k > j + 1 && p[j] == '-' && (isalpha((unsigned char)p[j + 1]) || p[j + 1] == '-'))
          fprintf(f, " %.*s", (int)(k - j), p + j);
        j = k + 1;
      }
    }
    if (!nl) break;
    p = nl + 1;
  }
}

int pc_cli_write_bash_completion(FILE *f, const pc_cli_command *cmds, size_t n, const char *const *sets,
                                 const char *const *formats) {
  fputs("# bash completion for perfcheck, written by `perfcheck help --bash-completion` from the\n"
        "# commands' --help texts: do not edit.  Installed as\n"
        "# share/bash-completion/completions/perfcheck; or: source it.\n"
        "_perfcheck() {\n"
        "  local cur prev cmd i\n"
        "  cur=${COMP_WORDS[COMP_CWORD]}\n"
        "  prev=${COMP_WORDS[COMP_CWORD-1]}\n"
        "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
        "    COMPREPLY=( $(compgen -W \"help --help --version",
        f);
  for (size_t i = 0; i < n; i++) fprintf(f, " %s", cmds[i].name);
  fputs("\" -- \"$cur\") )\n    return 0\n  fi\n  cmd=${COMP_WORDS[1]}\n", f);
  /* After `run ... --` (or run's first non-option word), the program's own words. */
  fputs("  if [ \"$cmd\" = run ] || [ \"$cmd\" = check ]; then\n"
        "    for ((i = 2; i < COMP_CWORD; i++)); do\n"
        "      if [ \"${COMP_WORDS[i]}\" = -- ]; then\n"
        "        if declare -F _command_offset >/dev/null; then _command_offset $((i + 1)); else\n"
        "          COMPREPLY=( $(compgen -c -f -- \"$cur\") ); fi\n"
        "        return 0\n"
        "      fi\n"
        "    done\n"
        "  fi\n",
        f);
  fputs("  case \"$prev\" in\n", f);
  fputs("    -f|--format) COMPREPLY=( $(compgen -W \"", f);
  for (size_t i = 0; formats[i]; i++) fprintf(f, "%s%s", i ? " " : "", formats[i]);
  fputs("\" -- \"$cur\") ); return 0 ;;\n", f);
  fputs("    --set) COMPREPLY=( $(compgen -W \"", f);
  for (size_t i = 0; sets[i]; i++) fprintf(f, "%s%s", i ? " " : "", sets[i]);
  fputs("\" -- \"$cur\") ); return 0 ;;\n", f);
  fputs("    --mode) COMPREPLY=( $(compgen -W \"timing counters\" -- \"$cur\") ); return 0 ;;\n", f);
  fputs("    help) COMPREPLY=( $(compgen -W \"", f);
  for (size_t i = 0; i < n; i++) fprintf(f, "%s%s", i ? " " : "", cmds[i].name);
  fputs("\" -- \"$cur\") ); return 0 ;;\n  esac\n", f);
  fputs("  local opts=\n  case \"$cmd\" in\n", f);
  for (size_t i = 0; i < n; i++) {
    fprintf(f, "    %s) opts=\"", cmds[i].name);
    pc_options_of(f, cmds[i].usage);
    fputs("\" ;;\n", f);
  }
  fputs("  esac\n"
        "  if [[ \"$cur\" == -* ]]; then\n"
        "    COMPREPLY=( $(compgen -W \"$opts\" -- \"$cur\") )\n"
        "  else\n"
        "    COMPREPLY=( $(compgen -f -- \"$cur\") )\n"
        "  fi\n"
        "  return 0\n"
        "}\n"
        "complete -o filenames -F _perfcheck perfcheck\n",
        f);
  return ferror(f) ? -1 : 0;
}
