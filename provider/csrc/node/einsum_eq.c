/* einsum_eq.c - Einsum's equation and its labels (einsum_eq.h, docs/einsum.md). */
#include "einsum_eq.h"

#include <stdio.h>
#include <string.h>

static int om_ein_letter(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return 26 + (c - 'a');
  return -1;
}

static char om_ein_char(int id) { return (char)(id < 26 ? 'A' + id : 'a' + (id - 26)); }

/* One term from text[*p] up to a ',', "->" or the end. */
static int om_ein_term_read(const char* text, size_t* p, om_ein_term* t, const char* what, char* msg, size_t len) {
  memset(t, 0, sizeof *t);
  for (;;) {
    char c = text[*p];
    if (c == '\0' || c == ',' || (c == '-' && text[*p + 1] == '>')) return 0;
    if (c == ' ') {
      (*p)++;
      continue;
    }
    if (t->n > OM_NODE_MAX_RANK) {
      snprintf(msg, len, "equation \"%s\": the %s has more than %d axes", text, what, OM_NODE_MAX_RANK);
      return -1;
    }
    if (c == '.') {
      if (text[*p + 1] != '.' || text[*p + 2] != '.') {
        snprintf(msg, len, "equation \"%s\": a '.' that is not part of an ellipsis \"...\" in the %s", text, what);
        return -1;
      }
      if (t->has_ell) {
        snprintf(msg, len, "equation \"%s\": the %s has more than one ellipsis", text, what);
        return -1;
      }
      t->has_ell = 1;
      t->sym[t->n++] = OM_EIN_ELL;
      *p += 3;
      continue;
    }
    int id = om_ein_letter(c);
    if (id < 0) {
      snprintf(msg, len, "equation \"%s\": character '%c' in the %s is not a letter, ',', \"->\" or \"...\"", text, c,
               what);
      return -1;
    }
    t->sym[t->n++] = (signed char)id;
    t->n_letters++;
    (*p)++;
  }
}

int om_ein_parse(const char* text, size_t n_inputs, om_ein_eq* eq, char* msg, size_t len) {
  memset(eq, 0, sizeof *eq);
  size_t p = 0;
  char what[32];
  for (;;) {
    if (eq->n_ops == OM_EIN_MAX_OPERANDS) {
      snprintf(msg, len, "equation \"%s\": more than %d operands are not served", text, OM_EIN_MAX_OPERANDS);
      return -1;
    }
    snprintf(what, sizeof what, "term of input %zu", eq->n_ops);
    if (om_ein_term_read(text, &p, &eq->in[eq->n_ops], what, msg, len) != 0) return -1;
    eq->n_ops++;
    if (text[p] == ',') {
      p++;
      continue;
    }
    break;
  }
  if (text[p] == '-') {
    p += 2;
    eq->explicit_out = 1;
    if (om_ein_term_read(text, &p, &eq->out, "output term", msg, len) != 0) return -1;
    if (text[p] != '\0') {
      snprintf(msg, len, "equation \"%s\": a second \"->\" or a ',' after \"->\"", text);
      return -1;
    }
  }
  if (eq->n_ops != n_inputs) {
    snprintf(msg, len, "equation \"%s\" has %zu input terms, the node %zu inputs", text, eq->n_ops, n_inputs);
    return -1;
  }
  if (!eq->explicit_out) return 0;
  int seen[OM_EIN_LETTERS] = {0};
  for (size_t k = 0; k < eq->n_ops; k++)
    for (size_t s = 0; s < eq->in[k].n; s++)
      if (eq->in[k].sym[s] >= 0) seen[eq->in[k].sym[s]] = 1;
  int in_out[OM_EIN_LETTERS] = {0};
  for (size_t s = 0; s < eq->out.n; s++) {
    int id = eq->out.sym[s];
    if (id < 0) continue;
    if (!seen[id]) {
      snprintf(msg, len, "equation \"%s\": output letter '%c' is in no input term", text, om_ein_char(id));
      return -1;
    }
    if (in_out[id]++) {
      snprintf(msg, len, "equation \"%s\": output letter '%c' appears more than once", text, om_ein_char(id));
      return -1;
    }
  }
  return 0;
}

int om_ein_rank_fits(const om_ein_eq* eq, size_t k, size_t rank, char* msg, size_t len) {
  const om_ein_term* t = &eq->in[k];
  if (rank > OM_NODE_MAX_RANK) return 0;
  if (t->has_ell ? rank >= t->n_letters : rank == t->n_letters) return 0;
  snprintf(msg, len, "input %zu has rank %zu, its term %s %zu letters%s", k, rank,
           t->has_ell ? "needs at least" : "has", t->n_letters, t->has_ell ? " (and an ellipsis)" : "");
  return -1;
}

static void om_ein_add_order(om_ein_dims* d, int label, int* next) {
  if (d->order[label] < 0) d->order[label] = (*next)++;
}

int om_ein_dims_of(const om_ein_eq* eq, const int64_t* const* shapes, const size_t* ranks, om_ein_dims* d,
                   char* msg, size_t len) {
  memset(d, 0, sizeof *d);
  for (size_t l = 0; l < OM_EIN_MAX_LABELS; l++) {
    d->size[l] = -1;
    d->order[l] = -1;
    d->last_use[l] = -1;
    d->out_pos[l] = -1;
  }
  for (size_t k = 0; k < eq->n_ops; k++) {
    if (om_ein_rank_fits(eq, k, ranks[k], msg, len) != 0) return -1;
    if (eq->in[k].has_ell && ranks[k] - eq->in[k].n_letters > d->E) d->E = ranks[k] - eq->in[k].n_letters;
  }
  int next = 0;
  for (size_t k = 0; k < eq->n_ops; k++) {
    const om_ein_term* t = &eq->in[k];
    size_t e = t->has_ell ? ranks[k] - t->n_letters : 0, a = 0;
    for (size_t s = 0; s < t->n; s++) {
      if (t->sym[s] == OM_EIN_ELL) {
        for (size_t q = 0; q < d->E; q++) om_ein_add_order(d, OM_EIN_LETTERS + (int)q, &next);
        for (size_t q = 0; q < e; q++, a++) {
          int l = OM_EIN_LETTERS + (int)(d->E - e + q);
          int64_t n = shapes[k][a];
          d->axis_label[k][a] = l;
          d->last_use[l] = (int)k;
          if (d->size[l] < 0 || d->size[l] == 1) d->size[l] = n;
          else if (n != 1 && n != d->size[l]) {
            snprintf(msg, len, "ellipsis dim %zu of input %zu has size %lld, which does not broadcast with %lld", q, k,
                     (long long)n, (long long)d->size[l]);
            return -1;
          }
        }
        continue;
      }
      int l = t->sym[s];
      int64_t n = shapes[k][a];
      for (size_t b = 0; b < a; b++) /* a repeated letter: the diagonal of equal axes */
        if (d->axis_label[k][b] == l && shapes[k][b] != n) {
          snprintf(msg, len, "letter '%c' is repeated in input %zu with sizes %lld (axis %zu) and %lld (axis %zu)",
                   om_ein_char(l), k, (long long)shapes[k][b], b, (long long)n, a);
          return -1;
        }
      om_ein_add_order(d, l, &next);
      d->axis_label[k][a++] = l;
      d->last_use[l] = (int)k;
      if (d->size[l] < 0 || d->size[l] == 1) d->size[l] = n;
      else if (n != 1 && n != d->size[l]) {
        snprintf(msg, len, "letter '%c' has size %lld at axis %zu of input %zu, %lld in an input before (only 1 "
                 "broadcasts)", om_ein_char(l), (long long)n, a - 1, k, (long long)d->size[l]);
        return -1;
      }
    }
  }
  /* the ellipsis dims no input has (a shorter ellipsis elsewhere) are size 1 */
  for (size_t q = 0; q < d->E; q++)
    if (d->size[OM_EIN_LETTERS + q] < 0) d->size[OM_EIN_LETTERS + q] = 1;
  if (eq->explicit_out) {
    for (size_t s = 0; s < eq->out.n; s++) {
      if (d->out_n + (eq->out.sym[s] == OM_EIN_ELL ? d->E : 1) > OM_NODE_MAX_RANK) {
        snprintf(msg, len, "the output would have more than %d axes", OM_NODE_MAX_RANK);
        return -1;
      }
      if (eq->out.sym[s] == OM_EIN_ELL)
        for (size_t q = 0; q < d->E; q++) d->out_label[d->out_n++] = OM_EIN_LETTERS + (int)q;
      else
        d->out_label[d->out_n++] = eq->out.sym[s];
    }
  } else { /* the ellipsis dims, then the letters used once, alphabetically */
    int count[OM_EIN_LETTERS] = {0};
    for (size_t k = 0; k < eq->n_ops; k++)
      for (size_t s = 0; s < eq->in[k].n; s++)
        if (eq->in[k].sym[s] >= 0) count[eq->in[k].sym[s]]++;
    for (size_t q = 0; q < d->E; q++) d->out_label[d->out_n++] = OM_EIN_LETTERS + (int)q;
    for (int l = 0; l < OM_EIN_LETTERS; l++)
      if (count[l] == 1) {
        if (d->out_n == OM_NODE_MAX_RANK) {
          snprintf(msg, len, "the output would have more than %d axes", OM_NODE_MAX_RANK);
          return -1;
        }
        d->out_label[d->out_n++] = l;
      }
  }
  for (size_t o = 0; o < d->out_n; o++) {
    d->out_pos[d->out_label[o]] = (int)o;
    d->out_shape[o] = d->size[d->out_label[o]];
  }
  return 0;
}
