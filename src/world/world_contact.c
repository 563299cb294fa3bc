// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Contact definitions: I and J lists or a group, checked and stored as one member list (body slot, I/J bits) plus a
// sorted list of excluded pairs; each member body records its contacts, which is all the broad phase needs to tell
// whether two overlapping bodies make a pair. Memory is proportional to the lists, never to their product.
#include "src/base/array.h"
#include "src/base/core.h"
#include "src/world/world_internal.h"

#include <stdlib.h>
#include <string.h>

#define WORLD_COOKIE ((int)MC_DEF_COOKIE)

void mc_contact_slot_free(mc_contact_slot* c)
{
    mc_free(c->members);
    mc_free(c->excluded);
    c->members = NULL;
    c->excluded = NULL;
    c->member_count = 0;
    c->excluded_count = 0;
}

void mc_contact_unlink(mc_world* w, uint32_t contact)
{
    const mc_contact_slot* c = &w->contacts[contact];
    for (uint32_t k = 0; k < c->member_count; ++k)
    {
        mc_body* b = &w->bodies[c->members[k].body];
        if (!b->alive || b->generation != c->members[k].generation)
        {
            continue;
        }
        uint32_t n = 0;
        for (uint32_t m = 0; m < b->member_count; ++m)
        {
            if (b->members[m].contact != contact)
            {
                b->members[n++] = b->members[m];
            }
        }
        b->member_count = n;
    }
}

static int cmp_slot_pair(const void* pa, const void* pb)
{
    const mc_slot_pair* a = pa;
    const mc_slot_pair* b = pb;
    if (a->lo != b->lo)
    {
        return a->lo < b->lo ? -1 : 1;
    }
    return (a->hi > b->hi) - (a->hi < b->hi);
}

bool mc_contact_excludes(const mc_contact_slot* c, uint32_t lo, uint32_t hi)
{
    if (c->excluded_count == 0)
    {
        return false;
    }
    mc_slot_pair key = {lo, hi};
    return bsearch(&key, c->excluded, c->excluded_count, sizeof key, cmp_slot_pair) != NULL;
}

bool mc_next_pairing_contact(const mc_world* w, uint32_t a, uint32_t b, uint32_t* i, uint32_t* j, uint32_t* contact,
                             bool* a_is_i)
{
    const mc_body* ba = &w->bodies[a];
    const mc_body* bb = &w->bodies[b];
    while (*i < ba->member_count && *j < bb->member_count)
    {
        const mc_membership* ma = &ba->members[*i];
        const mc_membership* mb = &bb->members[*j];
        if (ma->contact != mb->contact)
        {
            *i += ma->contact < mb->contact;
            *j += mb->contact < ma->contact;
            continue;
        }
        ++*i, ++*j;
        bool ab = (ma->flags & MC_MEMBER_I) && (mb->flags & MC_MEMBER_J);
        bool ba_ = (mb->flags & MC_MEMBER_I) && (ma->flags & MC_MEMBER_J);
        if ((ab || ba_) && !mc_contact_excludes(&w->contacts[ma->contact], a, b))
        {
            *contact = ma->contact;
            *a_is_i = ab;
            return true;
        }
    }
    return false;
}

static const mc_contact_member* find_member(const mc_contact_slot* c, uint32_t body)
{
    uint32_t lo = 0, hi = c->member_count;
    while (lo < hi)
    {
        uint32_t mid = lo + (hi - lo) / 2;
        if (c->members[mid].body < body)
        {
            lo = mid + 1;
        }
        else
        {
            hi = mid;
        }
    }
    return lo < c->member_count && c->members[lo].body == body ? &c->members[lo] : NULL;
}

static bool member_live(const mc_world* w, const mc_contact_member* m)
{
    const mc_body* b = &w->bodies[m->body];
    return b->alive && b->generation == m->generation;
}

// Whether bits fa (body a) and fb (body b) make a pair: a in I and b in J, or b in I and a in J.
static bool bits_pair(uint32_t fa, uint32_t fb)
{
    return ((fa & MC_MEMBER_I) && (fb & MC_MEMBER_J)) || ((fb & MC_MEMBER_I) && (fa & MC_MEMBER_J));
}

uint32_t mc_contact_defined_pairs(const mc_world* w, const mc_contact_slot* c)
{
    // Unordered pairs {a, b}, a != b, with (a in I and b in J) or the reverse: |I| |J| ordered (I, J) choices, less
    // the m bodies paired with themselves, less the m (m - 1) / 2 pairs counted in both orientations (m = |I & J|).
    uint64_t ni = 0, nj = 0, m = 0;
    for (uint32_t k = 0; k < c->member_count; ++k)
    {
        if (member_live(w, &c->members[k]))
        {
            uint32_t f = c->members[k].flags;
            ni += (f & MC_MEMBER_I) != 0;
            nj += (f & MC_MEMBER_J) != 0;
            m += f == (MC_MEMBER_I | MC_MEMBER_J);
        }
    }
    uint64_t n = ni * nj - m - m * (m - (m > 0)) / 2;
    for (uint32_t k = 0; k < c->excluded_count; ++k)
    {
        const mc_contact_member* a = find_member(c, c->excluded[k].lo);
        const mc_contact_member* b = find_member(c, c->excluded[k].hi);
        n -= a != NULL && b != NULL && member_live(w, a) && member_live(w, b); // defined: checked at creation
    }
    return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

// ---------------------------------------------------------------------------------------------------------------
// Creation: check everything, allocate everything, then commit (nothing half-created on failure)
// ---------------------------------------------------------------------------------------------------------------

static int cmp_member(const void* pa, const void* pb)
{
    const mc_contact_member* a = pa;
    const mc_contact_member* b = pb;
    if (a->body != b->body)
    {
        return a->body < b->body ? -1 : 1;
    }
    return (a->flags > b->flags) - (a->flags < b->flags);
}

static mc_status check_shape(const mc_contact_def* def, mc_error* err)
{
    if (def->mode != MC_CONTACT_LISTS && def->mode != MC_CONTACT_GROUP)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "contact mode %d is not MC_CONTACT_LISTS or "
                            "MC_CONTACT_GROUP",
                            (int)def->mode);
    }
    if (def->excluded_count > 0 && def->excluded_pairs == NULL)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "excluded_count is %u but excluded_pairs is NULL",
                            def->excluded_count);
    }
    if (def->mode == MC_CONTACT_GROUP)
    {
        if (def->j_count != 0 || def->j_bodies != NULL)
        {
            return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                                "a contact group takes one list (i_bodies): j_bodies must be NULL and j_count 0");
        }
        if (def->i_count < 2 || def->i_bodies == NULL)
        {
            return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                                "a contact group needs at least two bodies (it has %u)", def->i_count);
        }
        return MC_OK;
    }
    if (def->i_count == 0 || def->j_count == 0 || def->i_bodies == NULL || def->j_bodies == NULL)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "a contact needs at least one I body and one J body (IGEOM and JGEOM lists)");
    }
    return MC_OK;
}

// The lists as one member array (one entry per body, I/J bits merged), sorted by body slot.
static mc_status build_members(const mc_world* w, const mc_contact_def* def, mc_contact_member** out, uint32_t* count,
                               mc_error* err)
{
    bool group = def->mode == MC_CONTACT_GROUP;
    uint64_t total = (uint64_t)def->i_count + def->j_count;
    mc_contact_member* m = total <= UINT32_MAX ? mc_alloc((size_t)total * sizeof *m) : NULL;
    if (m == NULL)
    {
        return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "out of memory for the contact's lists");
    }
    for (uint64_t k = 0; k < total; ++k)
    {
        bool is_i = k < def->i_count;
        uint32_t idx = is_i ? (uint32_t)k : (uint32_t)(k - def->i_count);
        mc_body_id id = is_i ? def->i_bodies[idx] : def->j_bodies[idx];
        if (mc_world_body(w, id) == NULL)
        {
            mc_free(m);
            char buf[96];
            mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "%s body %u of the contact is not a valid body: %s",
                         group ? "group" : (is_i ? "I" : "J"), idx, mc_world_body_problem(w, id, buf, sizeof buf));
            if (err != NULL)
            {
                err->index = idx; // in i_bodies or j_bodies, as the message says
            }
            return MC_ERR_INVALID_ARGUMENT;
        }
        m[k].body = (uint32_t)id.index1 - 1;
        m[k].generation = id.generation;
        m[k].flags = group ? (MC_MEMBER_I | MC_MEMBER_J) : (is_i ? MC_MEMBER_I : MC_MEMBER_J);
    }
    qsort(m, (size_t)total, sizeof *m, cmp_member);
    uint32_t n = 0;
    for (uint64_t k = 0; k < total; ++k)
    {
        if (n > 0 && m[n - 1].body == m[k].body)
        {
            if ((m[n - 1].flags & m[k].flags) != 0)
            {
                uint32_t body = m[k].body + 1;
                const char* list = group ? "group" : (m[k].flags == MC_MEMBER_I ? "I list" : "J list");
                mc_free(m);
                return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                                    "body %u (index1) is listed twice in the contact's %s", body, list);
            }
            m[n - 1].flags |= m[k].flags;
            continue;
        }
        m[n++] = m[k];
    }
    *out = m;
    *count = n;
    return MC_OK;
}

static bool lists_pair_something(const mc_contact_member* m, uint32_t n)
{
    uint32_t ni = 0, nj = 0;
    for (uint32_t k = 0; k < n; ++k)
    {
        ni += (m[k].flags & MC_MEMBER_I) != 0;
        nj += (m[k].flags & MC_MEMBER_J) != 0;
    }
    // Only a body paired with itself is no pair: that happens when both lists are the same single body.
    return ni > 0 && nj > 0 && !(n == 1);
}

// The excluded pairs as sorted (lo, hi) slot pairs, each checked: two different live bodies the contact pairs.
static mc_status build_excluded(const mc_world* w, const mc_contact_def* def, const mc_contact_slot* tmp,
                                mc_slot_pair** out, uint32_t* count, mc_error* err)
{
    *out = NULL;
    *count = 0;
    if (def->excluded_count == 0)
    {
        return MC_OK;
    }
    mc_slot_pair* e = mc_alloc((size_t)def->excluded_count * sizeof *e);
    if (e == NULL)
    {
        return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "out of memory for the excluded pairs");
    }
    for (uint32_t k = 0; k < def->excluded_count; ++k)
    {
        mc_body_id a = def->excluded_pairs[k].a, b = def->excluded_pairs[k].b;
        const char* what = NULL;
        const mc_contact_member* ma = NULL;
        const mc_contact_member* mb = NULL;
        if (mc_world_body(w, a) == NULL || mc_world_body(w, b) == NULL)
        {
            what = "names an invalid or destroyed body";
        }
        else if (a.index1 == b.index1)
        {
            what = "names the same body twice";
        }
        else if ((ma = find_member(tmp, (uint32_t)a.index1 - 1)) == NULL ||
                 (mb = find_member(tmp, (uint32_t)b.index1 - 1)) == NULL || !bits_pair(ma->flags, mb->flags))
        {
            what = "is not a pair of this contact's lists";
        }
        if (what != NULL)
        {
            mc_free(e);
            mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "excluded pair %u (bodies %d and %d) %s", k, a.index1,
                         b.index1, what);
            if (err != NULL)
            {
                err->index = k;
            }
            return MC_ERR_INVALID_ARGUMENT;
        }
        uint32_t x = (uint32_t)a.index1 - 1, y = (uint32_t)b.index1 - 1;
        e[k].lo = x < y ? x : y;
        e[k].hi = x < y ? y : x;
    }
    qsort(e, def->excluded_count, sizeof *e, cmp_slot_pair);
    uint32_t n = 0;
    for (uint32_t k = 0; k < def->excluded_count; ++k)
    {
        if (n == 0 || cmp_slot_pair(&e[n - 1], &e[k]) != 0)
        {
            e[n++] = e[k];
        }
    }
    *out = e;
    *count = n;
    return MC_OK;
}

// Room for one more membership in every member body and for one more contact slot. Extra capacity left behind by a
// later failure is harmless (it is only capacity).
static bool reserve_links(mc_world* w, const mc_contact_member* m, uint32_t n)
{
    for (uint32_t k = 0; k < n; ++k)
    {
        mc_body* b = &w->bodies[m[k].body];
        if (!mc_array_reserve((void**)&b->members, &b->member_capacity, (uint64_t)b->member_count + 1,
                              sizeof *b->members, 2))
        {
            return false;
        }
    }
    return w->contact_free >= 0 || (w->contact_slots < (uint32_t)INT32_MAX &&
                                    mc_array_reserve((void**)&w->contacts, &w->contact_capacity,
                                                     (uint64_t)w->contact_slots + 1, sizeof *w->contacts, 4));
}

// Insert contact slot `contact` into each member body's membership list (kept sorted by contact slot).
static void link_members(mc_world* w, uint32_t contact, const mc_contact_member* m, uint32_t n)
{
    for (uint32_t k = 0; k < n; ++k)
    {
        mc_body* b = &w->bodies[m[k].body];
        uint32_t at = b->member_count;
        while (at > 0 && b->members[at - 1].contact > contact)
        {
            b->members[at] = b->members[at - 1];
            --at;
        }
        b->members[at].contact = contact;
        b->members[at].flags = m[k].flags;
        b->member_count++;
    }
}

static uint32_t take_contact_slot(mc_world* w)
{
    uint32_t index;
    if (w->contact_free >= 0)
    {
        index = (uint32_t)w->contact_free;
        w->contact_free = w->contacts[index].next_free;
    }
    else
    {
        index = w->contact_slots++;
        memset(&w->contacts[index], 0, sizeof w->contacts[index]);
    }
    return index;
}

static mc_status create_contact(mc_world* w, const mc_contact_def* def, mc_contact_id* out, mc_error* err);

mc_status mc_world_create_contact(mc_world* w, const mc_contact_def* def, mc_contact_id* out, mc_error* err)
{
    mc_error local;
    err = err != NULL ? err : &local;
    if (w == NULL || def == NULL || out == NULL)
    {
        mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "NULL %s",
                     w == NULL     ? "world"
                     : def == NULL ? "def"
                                   : "out");
        return mc_world_record(w, "mc_world_create_contact", err);
    }
    mc_status s = create_contact(w, def, out, err);
    return s == MC_OK ? s : mc_world_record(w, "mc_world_create_contact", err);
}

static mc_status create_contact(mc_world* w, const mc_contact_def* def, mc_contact_id* out, mc_error* err)
{
    MC_ASSERT(!w->evaluating);
    if (def->internal_value != WORLD_COOKIE)
    {
        return mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                            "contact def was not initialised with mc_default_contact_def()");
    }
    mc_status s = check_shape(def, err);
    s = s == MC_OK ? mc_force_model_check(&def->model, err) : s;
    mc_depth_method dm = def->depth_method;
    if (s == MC_OK && dm != MC_DEPTH_DEFAULT && dm != MC_DEPTH_ADAMS && dm != MC_DEPTH_VOLUME_AREA &&
        dm != MC_DEPTH_EXTENT && dm != MC_DEPTH_SMOOTH)
    {
        s = mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1, "unknown depth method %d", (int)dm);
    }
    mc_contact_slot tmp;
    memset(&tmp, 0, sizeof tmp);
    s = s == MC_OK ? build_members(w, def, &tmp.members, &tmp.member_count, err) : s;
    if (s == MC_OK && !lists_pair_something(tmp.members, tmp.member_count))
    {
        s = mc_set_error(err, MC_ERR_INVALID_ARGUMENT, -1, -1,
                         "the contact's lists pair no two different bodies (the same single body in both)");
    }
    s = s == MC_OK ? build_excluded(w, def, &tmp, &tmp.excluded, &tmp.excluded_count, err) : s;
    s = s == MC_OK ? mc_contact_check_unbounded(w, &tmp, err) : s;
    if (s == MC_OK && !reserve_links(w, tmp.members, tmp.member_count))
    {
        s = mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "out of memory");
    }
    if (s != MC_OK)
    {
        mc_contact_slot_free(&tmp);
        return s;
    }
    uint32_t index = take_contact_slot(w);
    mc_contact_slot* c = &w->contacts[index];
    uint32_t gen = c->generation + 1;
    *c = tmp;
    c->generation = gen == 0 ? 1 : gen;
    c->model = def->model;
    c->depth = dm == MC_DEPTH_DEFAULT ? w->depth_method : dm;
    c->user_data = def->user_data;
    c->alive = true;
    c->next_free = -1;
    link_members(w, index, c->members, c->member_count);
    mc_world_structure_changed(w);
    out->index1 = (int32_t)index + 1;
    out->generation = c->generation;
    return MC_OK;
}
